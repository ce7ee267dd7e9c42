/* rng.c: named MT19937 streams seeded from (scenario seed, replication,
 * name) through splitmix64, the MT19937 gsl_rng type they use (a copy of
 * GSL's, see rng.h), and the uniform adapters policies receive through
 * ss_env. */
#include "core/rng.h"

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

/* ---- MT19937 as a gsl_rng type ----------------------------------------------
 * Matsumoto and Nishimura (1998), exactly as GSL's mt.c implements it
 * (gsl_rng_mt19937), so that a stream gives the numbers it always gave; the
 * one difference is 32-bit words in the state, which GSL keeps as unsigned
 * long. */

#define MT_M 397
#define MT_UPPER 0x80000000u /* most significant bit */
#define MT_LOWER 0x7fffffffu /* the 31 others */

/* One step of the recurrence: mix words a (upper bit) and b (lower bits)
 * into the word M places ahead.  The "& -(y & 1)" selects the twist constant
 * without a branch on a random bit. */
static inline uint32_t mt_twist(uint32_t a, uint32_t b, uint32_t ahead)
{
    uint32_t y = (a & MT_UPPER) | (b & MT_LOWER);
    return ahead ^ (y >> 1) ^ (0x9908b0dfu & (0u - (y & 1u)));
}

void ss_mt_refill(ss_mt_state *s)
{
    uint32_t *mt = s->mt;
    /* The recurrence, in GSL's order.  Word k reads words k+1 (not yet
     * rewritten) and k+M (not yet, in the first part; rewritten 227 steps
     * before, in the second), so four consecutive steps are independent and
     * the loops vectorise; their lengths are multiples of 4 where they can
     * be (224 + 3, 396, 1) because at -O2 GCC vectorises only loops without
     * a remainder. */
    int k;
    for (k = 0; k < 224; k++) mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M]);
    for (; k < SS_MT_N - MT_M; k++) mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M]);
    for (; k < SS_MT_N - 1; k++) mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M - SS_MT_N]);
    mt[SS_MT_N - 1] = mt_twist(mt[SS_MT_N - 1], mt[0], mt[MT_M - 1]);
    /* Tempering, word by word. */
    for (k = 0; k < SS_MT_N; k++) {
        uint32_t y = mt[k];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= y >> 18;
        s->out[k] = y;
    }
    s->mti = 0;
}

static void mt_set(void *state, unsigned long seed)
{
    ss_mt_state *s = state;
    if (seed == 0) seed = 4357; /* GSL's default seed, as in its mt_set */
    s->mt[0] = (uint32_t)seed;
    for (uint32_t i = 1; i < SS_MT_N; i++) /* Knuth, TAOCP vol. 2, 3rd ed., p. 106 */
        s->mt[i] = 1812433253u * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) + i;
    s->mti = SS_MT_N;
}

static unsigned long mt_get(void *state)
{
    return ss_mt_next(state);
}

static double mt_get_double(void *state)
{
    return mt_get(state) / 4294967296.0;
}

const gsl_rng_type ss_rng_mt19937_type = {
    .name = "servesim-mt19937",
    .max = 0xffffffffUL,
    .min = 0,
    .size = sizeof(ss_mt_state),
    .set = mt_set,
    .get = mt_get,
    .get_double = mt_get_double,
};

/* ---- named streams ------------------------------------------------------------ */

/* Chain the three inputs through the mixer one at a time, so that each
 * input passes through a different number of rounds: swapping seed and
 * replication ((1,2) vs (2,1)) gives unrelated values, as does any change of
 * name.  The replication is mixed on its own first so that small consecutive
 * replications are spread over all 64 bits before they meet the seed. */
static uint64_t stream_key(uint64_t seed, uint64_t replication, const char *name)
{
    uint64_t h = ss_mix64(seed);
    h = ss_mix64(h ^ ss_mix64(replication ^ 0x5bd1e9955bd1e995ull));
    h = ss_mix64(h ^ ss_hash_str(name ? name : ""));
    return h;
}

gsl_rng *ss_rng_stream(uint64_t seed, uint64_t replication, const char *name)
{
    gsl_rng *r = gsl_rng_alloc(&ss_rng_mt19937_type);
    if (!r) {
        fputs("servesim: out of memory\n", stderr);
        abort();
    }
    uint64_t h = stream_key(seed, replication, name);
    /* Fold to 32 bits; 0 would make GSL substitute its default seed (4357),
     * which every zero-folding stream would then share. */
    uint32_t s32 = (uint32_t)(h ^ (h >> 32));
    if (s32 == 0) s32 = 0x9e3779b9u;
    gsl_rng_set(r, (unsigned long)s32);
    /* zigexp.c reads 32 random bits per gsl_rng_get. */
    assert(gsl_rng_min(r) == 0 && gsl_rng_max(r) == 0xffffffffUL);
    return r;
}

double ss_rng_uniform(void *rng)
{
    return gsl_rng_uniform((gsl_rng *)rng);
}

/* 32 uniformly random bits.  mt19937 yields exactly that per call; any other
 * generator is read 16 bits at a time through gsl_rng_uniform_int. */
static uint64_t bits32(gsl_rng *r)
{
    if (gsl_rng_min(r) == 0 && gsl_rng_max(r) == 0xffffffffUL) return (uint64_t)gsl_rng_get(r);
    uint64_t hi = gsl_rng_uniform_int(r, 65536);
    uint64_t lo = gsl_rng_uniform_int(r, 65536);
    return hi << 16 | lo;
}

uint64_t ss_rng_uniform_int(void *rng, uint64_t n)
{
    gsl_rng *r = rng;
    if (n <= 1) return 0;
    /* gsl_rng_uniform_int accepts n up to the generator's range, 2^32-1 for
     * mt19937 (it aborts through the GSL error handler beyond that). */
    if (n <= 0xffffffffull && n - 1 <= gsl_rng_max(r) - gsl_rng_min(r))
        return (uint64_t)gsl_rng_uniform_int(r, (unsigned long)n);
    /* Larger n: 64 uniform bits from two draws, rejecting the top partial
     * copy of [0, n) so that every residue is equally likely.  At most half
     * of the 2^64 values are rejected, so the loop ends quickly. */
    uint64_t reject_below = (0 - n) % n; /* 2^64 mod n */
    for (;;) {
        uint64_t hi = bits32(r); /* two statements: a fixed draw order */
        uint64_t x = hi << 32 | bits32(r);
        if (x >= reject_below) return x % n;
    }
}
