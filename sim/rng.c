/* rng.c: named GSL mt19937 streams seeded from (scenario seed, replication,
 * name) through splitmix64, and the uniform adapters policies receive
 * through ss_env (see rng.h). */
#include "rng.h"

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

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
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
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
