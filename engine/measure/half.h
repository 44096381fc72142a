/* float ↔ IEEE fp16 and bfloat16 bit patterns on the host (round to nearest
 * even), for parameters the cuda backend prepares and outputs it reads back. */
#ifndef SSLAT_HALF_H
#define SSLAT_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t sslat_float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float sslat_bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t sslat_float_to_bf16(float f)
{
    uint32_t u = sslat_float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* NaN stays NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float sslat_bf16_to_float(uint16_t h) { return sslat_bits_float((uint32_t)h << 16); }

static inline uint16_t sslat_float_to_fp16(float f)
{
    uint32_t u = sslat_float_bits(f), sign = (u >> 16) & 0x8000u;
    uint32_t magnitude = u & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);           /* NaN */
    if (magnitude >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);          /* overflow: inf */
    if (magnitude < 0x38800000u) {                                            /* subnormal or zero */
        float scaled = sslat_bits_float(magnitude) * 16777216.0f;             /* × 2^24: units of 2^-24 */
        uint32_t q = (uint32_t)scaled;
        float rest = scaled - (float)q;
        if (rest > 0.5f || (rest == 0.5f && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t exponent = (magnitude >> 23) - 112, mantissa = magnitude & 0x7fffffu;
    uint32_t h = (exponent << 10) | (mantissa >> 13), rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;               /* may carry into the exponent */
    return (uint16_t)(sign | h);
}

static inline float sslat_fp16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0) {
        float v = (float)mantissa / 16777216.0f; /* × 2^-24 */
        return sign ? -v : v;
    }
    if (exponent == 31) return sslat_bits_float(sign | 0x7f800000u | (mantissa << 13));
    return sslat_bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

#endif
