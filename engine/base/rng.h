/* xoshiro256** seeded through splitmix64: fast, reproducible from one seed. */
#ifndef SSLAT_RNG_H
#define SSLAT_RNG_H

#include <stdint.h>

typedef struct sslat_rng {
    uint64_t s[4];
} sslat_rng;

void sslat_rng_seed(sslat_rng *rng, uint64_t seed);
uint64_t sslat_rng_next(sslat_rng *rng);
/* Uniform in [0, bound), bound ≥ 1, without modulo bias (Lemire's method). */
uint32_t sslat_rng_below(sslat_rng *rng, uint32_t bound);

#endif
