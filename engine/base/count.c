#include "base/count.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sslat_product_string(const int32_t *factors, size_t n, char *buffer, size_t capacity)
{
    enum { BASE = 1000000000 }; /* base-1e9 limbs, least significant first */
    uint32_t *limbs = calloc(n + 2, sizeof *limbs); /* each factor < 2^31 adds at most one limb */
    if (!limbs) {
        if (capacity) buffer[0] = '\0';
        return 0;
    }
    size_t used = 1;
    limbs[0] = 1;
    for (size_t k = 0; k < n; k++) {
        uint64_t factor = factors[k] > 0 ? (uint64_t)factors[k] : 0, carry = 0;
        for (size_t i = 0; i < used; i++) {
            uint64_t v = limbs[i] * factor + carry;
            limbs[i] = (uint32_t)(v % BASE);
            carry = v / BASE;
        }
        while (carry) {
            limbs[used++] = (uint32_t)(carry % BASE);
            carry /= BASE;
        }
    }
    while (used > 1 && limbs[used - 1] == 0) used--;
    size_t length = (size_t)snprintf(buffer, capacity, "%u", limbs[used - 1]);
    for (size_t i = used - 1; i-- > 0;) {
        char part[16];
        snprintf(part, sizeof part, "%09u", limbs[i]);
        if (length + 9 < capacity) memcpy(buffer + length, part, 10);
        length += 9;
    }
    if (capacity && length >= capacity) buffer[capacity - 1] = '\0';
    free(limbs);
    return length;
}
