/* rng.h: independent GSL random streams derived from (scenario seed, stream name).
 *
 * Every source of randomness (a workload's arrivals, a model's service times,
 * a policy instance) owns one stream named after it, e.g.
 * "workload/chat/arrivals".  The stream's seed is a hash of the scenario seed,
 * the replication and the name, so adding a workload or switching a policy
 * never shifts the numbers another source sees: policies compared on one seed
 * see identical arrivals (common random numbers).  Generator: GSL's
 * mt19937 (period 2^19937-1), seeded with a 32-bit value from splitmix64. */
#ifndef SS_RNG_H
#define SS_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

/* A new stream; never NULL (aborts on out of memory).  Free with gsl_rng_free. */
gsl_rng *ss_rng_stream(uint64_t seed, uint64_t replication, const char *name);

/* Adapters with the ss_env signatures of servesim/policy.h. */
double ss_rng_uniform(void *rng);
uint64_t ss_rng_uniform_int(void *rng, uint64_t n);

#endif
