#include "measure/parameters.h"

#include <math.h>
#include <stdlib.h>

#include "ir/op.h"
#include "measure/fill.h"
#include "sslat.h" /* sslat_parameter_values is public */

void sslat_parameter_values(uint64_t seed, int32_t node, int32_t role, int64_t fan_in, float *out, size_t count)
{
    if (out) sslat_fill_parameter(out, count, seed ? seed : SSLAT_DEFAULT_SEED, node, role, fan_in);
}

void sslat_fill_parameter(float *out, size_t count, uint64_t seed, int32_t node, int role,
                          int64_t fan_in)
{
    float lo = -1, hi = 1;
    if (node >= 0) {
        switch (role) {
        case SSLAT_ROLE_WEIGHTS: hi = (float)sqrt(3.0 / (double)(fan_in > 0 ? fan_in : 1)); lo = -hi; break;
        case SSLAT_ROLE_BIAS: lo = -0.1f, hi = 0.1f; break;
        case SSLAT_ROLE_GAMMA: lo = 0.5f, hi = 1.5f; break;
        case SSLAT_ROLE_BETA: lo = -0.5f, hi = 0.5f; break;
        case SSLAT_ROLE_MEAN: lo = -0.2f, hi = 0.2f; break;
        case SSLAT_ROLE_VARIANCE: lo = 0.5f, hi = 1.5f; break;
        }
    }
    sslat_fill_uniform(out, count, sslat_fill_stream(seed, node, role), lo, hi);
}

bool sslat_fill_attention_bias(float *out, int32_t heads, int32_t tokens, uint64_t seed, int32_t node)
{
    size_t H = (size_t)heads, T = (size_t)tokens;
    int32_t side = sslat_square_grid_side(tokens);
    float *table = malloc(H * T * sizeof *table + 1);
    if (!table) return false;
    sslat_fill_parameter(table, H * T, seed, node, SSLAT_ROLE_BIAS, 0);
    for (size_t h = 0; h < H; h++)
        for (int32_t i = 0; i < tokens; i++)
            for (int32_t j = 0; j < tokens; j++)
                out[(h * T + (size_t)i) * T + (size_t)j] = table[h * T + (size_t)sslat_attention_bias_index(side, i, j)];
    free(table);
    return true;
}
