/* Exact counts too large for a double: the number of architectures of a
 * space is the product of its blocks' candidate counts (3^768 overflows a
 * double; printed as "inf" it was a silent wrong answer). */
#ifndef SSLAT_COUNT_H
#define SSLAT_COUNT_H

#include <stddef.h>
#include <stdint.h>

/* The product of factors[0..n) (each >= 0) in decimal into buffer (NUL-
 * terminated, cut to capacity); returns its full length (as snprintf). */
size_t sslat_product_string(const int32_t *factors, size_t n, char *buffer, size_t capacity);

#endif
