/* The seeded parameters every timed backend uses: the same weights, biases and
 * BN statistics on the CPU and on the GPU, which tests' reference regenerates. */
#ifndef SSLAT_PARAMETERS_H
#define SSLAT_PARAMETERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sslat.h" /* sslat_parameter_role */

/* The seed of the inputs and weights when none is given: tables, validation
 * runs and ONNX exports of one space agree on every value. */
#define SSLAT_DEFAULT_SEED 0x5eed

/* BN epsilon of every batchnorm, as PyTorch's default. */
#define SSLAT_BN_EPSILON 1e-5f

/* The roles of a node's parameters (each its own measure/fill.h stream) are
 * the public sslat_parameter_role (sslat.h). */

/* The seeded values of one parameter tensor: weights uniform in ±sqrt(3 / fan_in)
 * (unit variance through a layer), bias ±0.1, gamma [0.5, 1.5], beta ±0.5, mean
 * ±0.2, variance [0.5, 1.5] (never zero). The program input is node -1, role 0
 * (role = the copy), uniform in [-1, 1]. Node i of the k-th appended graph is
 * (nodes of the graphs before it) + i. */
void sslat_fill_parameter(float *out, size_t count, uint64_t seed, int32_t node, int role,
                          int64_t fan_in);

/* An attention's position bias as the timed backends add it, the way
 * PyTorch's eval mode caches it: the node's seeded table (heads × tokens
 * values, role bias) gathered to heads × tokens × tokens at each pair's grid
 * offset (sslat_attention_bias_index). false when out of memory. */
bool sslat_fill_attention_bias(float *out, int32_t heads, int32_t tokens, uint64_t seed, int32_t node);

#endif
