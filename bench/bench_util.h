/* Clock and sorting helpers shared by the benches. */
#ifndef SSLAT_BENCH_UTIL_H
#define SSLAT_BENCH_UTIL_H

#include <time.h>

static inline double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static inline double bench_now_s(void) { return bench_now_ms() / 1e3; }

static inline int bench_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
