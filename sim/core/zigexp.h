/* zigexp.h: unit-mean exponential variates by the ziggurat method.
 *
 * GSL's gsl_ran_exponential costs a log1p per draw, the largest single cost
 * of a Poisson-driven simulation.  The ziggurat (Marsaglia and Tsang, "The
 * ziggurat method for generating random variables", J. Stat. Softw. 5(8),
 * 2000; 256 strips, r = 7.69711747013104972) returns a draw from one 32-bit
 * word and a table look-up about 98.9% of the time.  Unlike the paper's
 * code, the strip index (low 8 bits) and the position in the strip (the
 * other 24 bits) use disjoint bits, avoiding the index/value correlation
 * Doornik (2005) found in the original.  Within a strip the resolution is
 * 2^-24 of the strip's width; the tail and the wedge tests use GSL's
 * double-precision uniforms.  Exact in distribution up to that resolution
 * (checked by a Kolmogorov-Smirnov test in tests/test_dist.c).
 * Requires a generator returning 32 random bits per gsl_rng_get (mt19937
 * and taus2 do; asserted).  servesim's own streams (rng.h) are drawn inline.
 *
 * The common case (one word, one table look-up) is inline; the rest of the
 * method, and the building of the tables, is ss_ran_exp1_rest in zigexp.c. */
#ifndef SS_ZIGEXP_H
#define SS_ZIGEXP_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

#include "core/rng.h"

/* The strip tables (zigexp.c).  Until the first draw builds them they are
 * all zero, which sends that draw to ss_ran_exp1_rest: the inline path
 * needs no "built yet?" test. */
extern uint32_t ss_zig_ke[256]; /* accept position u of strip i at once if u < ke[i] */
extern double ss_zig_we[256];   /* the draw is then u * we[i] */

/* Finish a draw whose first word j fell outside the accept-at-once region. */
double ss_ran_exp1_rest(gsl_rng *r, uint32_t j);

static inline double ss_ran_exp1(gsl_rng *r)
{
    uint32_t j = ss_rng_u32(r);
    uint32_t i = j & 255, u = j >> 8; /* strip index and position: disjoint bits */
    if (__builtin_expect(u < ss_zig_ke[i], 1)) return u * ss_zig_we[i];
    return ss_ran_exp1_rest(r, j);
}

#endif
