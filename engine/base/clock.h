/* The one monotonic clock every timer of sslat reads. */
#ifndef SSLAT_CLOCK_H
#define SSLAT_CLOCK_H

#include <time.h>

static inline double sslat_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static inline double sslat_now_s(void) { return sslat_now_ms() / 1e3; }

#endif
