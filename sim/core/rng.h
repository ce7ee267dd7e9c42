/* rng.h: independent GSL random streams derived from (scenario seed, stream name).
 *
 * Every source of randomness (a workload's arrivals, a model's service times,
 * a policy instance) owns one stream named after it, e.g.
 * "workload/chat/arrivals".  The stream's seed is a hash of the scenario seed,
 * the replication and the name, so adding a workload or switching a policy
 * never shifts the numbers another source sees: policies compared on one seed
 * see identical arrivals (common random numbers).  Generator: MT19937 (period
 * 2^19937-1), seeded with a 32-bit value from splitmix64.
 *
 * The streams are ordinary gsl_rng objects, so every GSL sampler and the
 * plugins' ss_env accept them.  Their type, ss_rng_mt19937_type, is
 * servesim's own copy of GSL's gsl_rng_mt19937: the same recurrence, the same
 * seeding (Knuth's multiplier, 2002 version) and so the very same numbers for
 * the same seed (tests/test_rng.c compares them), but with a state layout
 * known here.  That lets the hot path draw through ss_rng_u32, an inline
 * function, instead of gsl_rng_get's call through the type's function
 * pointer, which cost more than the generator itself. */
#ifndef SS_RNG_H
#define SS_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

/* A new stream; never NULL (aborts on out of memory).  Free with gsl_rng_free. */
gsl_rng *ss_rng_stream(uint64_t seed, uint64_t replication, const char *name);

/* Adapters with the ss_env signatures of servesim/policy.h. */
double ss_rng_uniform(void *rng);
uint64_t ss_rng_uniform_int(void *rng, uint64_t n);

/* ---- inline draws ------------------------------------------------------ */

#define SS_MT_N 624

/* The state of an ss_rng_mt19937_type generator (gsl_rng.state).  A refill
 * regenerates all SS_MT_N state words and tempers them into out[] in two
 * element-wise passes that the compiler vectorises, so a draw is a load. */
typedef struct ss_mt_state {
    uint32_t mti;          /* next word of out to return; SS_MT_N: refill first */
    uint32_t mt[SS_MT_N];  /* the MT19937 state */
    uint32_t out[SS_MT_N]; /* the tempered outputs of the current state */
} ss_mt_state;

extern const gsl_rng_type ss_rng_mt19937_type;

/* Regenerate and temper all SS_MT_N words (once every SS_MT_N draws; out of line). */
void ss_mt_refill(ss_mt_state *s);

/* The next MT19937 output of state s. */
static inline uint32_t ss_mt_next(ss_mt_state *s)
{
    if (__builtin_expect(s->mti >= SS_MT_N, 0)) ss_mt_refill(s);
    return s->out[s->mti++];
}

/* 32 random bits: what gsl_rng_get(r) returns for a 32-bit generator, inline
 * for servesim's own streams and through GSL for any other generator (tests
 * hand in plain GSL generators). */
static inline uint32_t ss_rng_u32(gsl_rng *r)
{
    if (__builtin_expect(r->type != &ss_rng_mt19937_type, 0)) return (uint32_t)gsl_rng_get(r);
    return ss_mt_next(r->state);
}

/* Uniform on [0, 1): gsl_rng_uniform(r), bit for bit, for a 32-bit generator
 * whose get_double is get / 2^32 (MT19937's is; any other type goes through GSL). */
static inline double ss_rng_u01(gsl_rng *r)
{
    if (__builtin_expect(r->type != &ss_rng_mt19937_type, 0)) return gsl_rng_uniform(r);
    return ss_mt_next(r->state) / 4294967296.0;
}

/* Uniform on (0, 1): gsl_rng_uniform_pos(r), bit for bit (redraws a 0). */
static inline double ss_rng_u01_pos(gsl_rng *r)
{
    if (__builtin_expect(r->type != &ss_rng_mt19937_type, 0)) return gsl_rng_uniform_pos(r);
    double x;
    do x = ss_mt_next(r->state) / 4294967296.0;
    while (x == 0);
    return x;
}

#endif
