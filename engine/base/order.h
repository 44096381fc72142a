/* qsort order of doubles, ascending (NaN never reaches it: values are checked). */
#ifndef SSLAT_ORDER_H
#define SSLAT_ORDER_H

static inline int sslat_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
