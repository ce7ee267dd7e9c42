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
 * and taus2 do; asserted).  servesim's own streams (rng.h) are drawn inline. */
#ifndef SS_ZIGEXP_H
#define SS_ZIGEXP_H

#include <gsl/gsl_rng.h>

double ss_ran_exp1(gsl_rng *r);

#endif
