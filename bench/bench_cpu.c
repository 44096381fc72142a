/* The cpu calculator's time for typical ops against a minimal raw oneDNN loop
 * of the same primitive in the same process: the harness overhead (ratio, target
 * under 3%) and the achieved GFLOP/s. Nothing is asserted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/order.h"
#include "calc/calculator.h"
#include "calc/run.h"
#include "host/dnnl_api.h"
#include "ir/space.h"
#include "sslat.h"
#include "table/container.h"

#define CHECK(call) do { if ((call) != dnnl_success) { fprintf(stderr, "%s failed\n", #call); exit(1); } } while (0)

/* conv (groups g) or inner product, formats any, timed `runs` times; median ms */
static double raw_median(dnnl_engine_t engine, dnnl_stream_t stream, int n, int c, int h, int oc, int k,
                         int g, int runs, bool linear)
{
    dnnl_memory_desc_t src, wei, dst, bias;
    dnnl_dims_t s = {n, c, h, h}, d = {n, oc, h, h}, w5 = {g, oc / g, c / g, k, k}, w4 = {oc, c, k, k};
    dnnl_dims_t s2 = {n, c}, d2 = {n, oc}, w2 = {oc, c}, b = {oc};
    dnnl_primitive_desc_t pd;
    if (linear) {
        CHECK(DNNL(dnnl_memory_desc_init_by_tag)(&src, 2, s2, dnnl_f32, dnnl_format_tag_any));
        CHECK(DNNL(dnnl_memory_desc_init_by_tag)(&wei, 2, w2, dnnl_f32, dnnl_format_tag_any));
        CHECK(DNNL(dnnl_memory_desc_init_by_tag)(&dst, 2, d2, dnnl_f32, dnnl_format_tag_any));
        CHECK(DNNL(dnnl_memory_desc_init_by_tag)(&bias, 1, b, dnnl_f32, dnnl_x));
        dnnl_inner_product_desc_t desc;
        CHECK(DNNL(dnnl_inner_product_forward_desc_init)(&desc, dnnl_forward_inference, &src, &wei, &bias, &dst));
        CHECK(DNNL(dnnl_primitive_desc_create)(&pd, &desc, NULL, engine, NULL));
    } else {
        dnnl_dims_t strides = {1, 1}, dil = {0, 0}, pad = {k / 2, k / 2};
        CHECK(DNNL(dnnl_memory_desc_init_by_tag)(&src, 4, s, dnnl_f32, dnnl_format_tag_any));
        CHECK(DNNL(dnnl_memory_desc_init_by_tag)(&wei, g > 1 ? 5 : 4, g > 1 ? w5 : w4, dnnl_f32, dnnl_format_tag_any));
        CHECK(DNNL(dnnl_memory_desc_init_by_tag)(&dst, 4, d, dnnl_f32, dnnl_format_tag_any));
        dnnl_convolution_desc_t desc;
        CHECK(DNNL(dnnl_dilated_convolution_forward_desc_init)(&desc, dnnl_forward_inference, dnnl_convolution_direct,
                                                               &src, &wei, NULL, &dst, strides, dil, pad, pad));
        CHECK(DNNL(dnnl_primitive_desc_create)(&pd, &desc, NULL, engine, NULL));
    }
    dnnl_memory_t ms, mw, md, mb = NULL;
    CHECK(DNNL(dnnl_memory_create)(&ms, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_src_md, 0), engine, DNNL_MEMORY_ALLOCATE));
    CHECK(DNNL(dnnl_memory_create)(&mw, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_weights_md, 0), engine, DNNL_MEMORY_ALLOCATE));
    CHECK(DNNL(dnnl_memory_create)(&md, DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_dst_md, 0), engine, DNNL_MEMORY_ALLOCATE));
    if (linear) CHECK(DNNL(dnnl_memory_create)(&mb, &bias, engine, DNNL_MEMORY_ALLOCATE));
    void *data;
    DNNL(dnnl_memory_get_data_handle)(ms, &data);
    for (size_t i = 0; i < DNNL(dnnl_memory_desc_get_size)(DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_src_md, 0)) / 4; i++)
        ((float *)data)[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    DNNL(dnnl_memory_get_data_handle)(mw, &data);
    for (size_t i = 0; i < DNNL(dnnl_memory_desc_get_size)(DNNL(dnnl_primitive_desc_query_md)(pd, dnnl_query_weights_md, 0)) / 4; i++)
        ((float *)data)[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
    dnnl_primitive_t prim;
    CHECK(DNNL(dnnl_primitive_create)(&prim, pd));
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}, {DNNL_ARG_BIAS, mb}};
    double *t = malloc((size_t)runs * sizeof *t);
    for (int i = 0; i < 10; i++) { CHECK(DNNL(dnnl_primitive_execute)(prim, stream, linear ? 4 : 3, args)); CHECK(DNNL(dnnl_stream_wait)(stream)); }
    for (int i = 0; i < runs; i++) {
        double t0 = sslat_now_ms();
        CHECK(DNNL(dnnl_primitive_execute)(prim, stream, linear ? 4 : 3, args));
        CHECK(DNNL(dnnl_stream_wait)(stream));
        t[i] = sslat_now_ms() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, sslat_compare_doubles);
    double median = t[runs / 2];
    free(t);
    DNNL(dnnl_primitive_destroy)(prim);
    DNNL(dnnl_primitive_desc_destroy)(pd);
    DNNL(dnnl_memory_destroy)(ms);
    DNNL(dnnl_memory_destroy)(mw);
    DNNL(dnnl_memory_destroy)(md);
    if (mb) DNNL(dnnl_memory_destroy)(mb);
    return median;
}

static double calculator_ms(const char *layer, int c, int h, int runs, int replicas)
{
    char text[512];
    snprintf(text, sizeof text, "{\"sslat\": 1, \"input\": {\"shape\": [%d, %d, %d]}, \"layers\": [%s]}", c, h, h, layer);
    sslat_space *space = NULL;
    sslat_error err;
    if (sslat_space_load_string(text, strlen(text), "bench", NULL, &space, &err) != SSLAT_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    sslat_calc_options o;
    sslat_calc_options_default(&o);
    o.run_iterations = runs;
    o.cpu.replicas = replicas;
    o.mode = SSLAT_MODE_EAGER; /* the bare primitive, like the raw loop */
    sslat_container *table = NULL;
    sslat_container_create("cpu", 0, NULL, NULL, 0, &table, &err);
    if (sslat_calculate_space(&sslat_cpu_calculator, space, &o, NULL, table, &err) != SSLAT_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    double ms = sslat_container_constant_latency(table);
    sslat_container_free(table);
    sslat_space_free(space);
    return ms;
}

int main(void)
{
    const char *why = host_dnnl_load();
    if (why) {
        printf("bench_cpu: %s\n", why);
        return 0;
    }
    host_dnnl_set_threads(0);
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    CHECK(DNNL(dnnl_engine_create)(&engine, dnnl_cpu, 0));
    CHECK(DNNL(dnnl_stream_create)(&stream, engine, dnnl_stream_default_flags));
    struct { const char *name, *layer; int c, h, oc, k, g; bool linear; } ops[] = {
        {"conv 3x3 56x56x64", "\"conv_k3_c64\"", 64, 56, 64, 3, 1, false},
        {"depthwise 5x5 28x28x240", "\"conv_k5_c240_g240\"", 240, 28, 240, 5, 240, false},
        {"1x1 expand 28x28 40->240", "\"conv_k1_c240\"", 40, 28, 240, 1, 1, false},
        {"fc 1280->1000", "\"fc1000\"", 1280, 1, 1000, 1, 1, true},
    };
    const int runs = 51, rounds = 7;
    printf("%-26s %10s %10s %8s %10s %12s\n", "op", "raw ms", "sslat ms", "ratio", "GFLOP/s", "auto-R ms");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        /* alternate the two, several rounds, and compare medians: the machine's
         * drift then hits both alike */
        double raws[7], mine[7], copies[7];
        for (int r = 0; r < rounds; r++) {
            raws[r] = raw_median(engine, stream, 1, ops[i].c, ops[i].h, ops[i].oc, ops[i].k, ops[i].g, runs, ops[i].linear);
            mine[r] = calculator_ms(ops[i].layer, ops[i].c, ops[i].h, runs, 1);
            copies[r] = calculator_ms(ops[i].layer, ops[i].c, ops[i].h, runs, 0);
        }
        qsort(raws, rounds, sizeof *raws, sslat_compare_doubles);
        qsort(mine, rounds, sizeof *mine, sslat_compare_doubles);
        qsort(copies, rounds, sizeof *copies, sslat_compare_doubles);
        double raw = raws[rounds / 2], ours = mine[rounds / 2], replicated = copies[rounds / 2];
        double flop = 2.0 * ops[i].oc * ops[i].h * ops[i].h * (ops[i].c / ops[i].g) * ops[i].k * ops[i].k;
        printf("%-26s %10.4f %10.4f %8.3f %10.1f %12.4f\n", ops[i].name, raw, ours, ours / raw, flop / (raw * 1e6),
               replicated);
    }
    printf("(medians of %d alternating rounds; ratio = sslat's single-copy time / raw loop; auto-R:\n"
           " the calculator's default, copies chained past 2x L2, which is what the tables hold)\n", rounds);
    DNNL(dnnl_stream_destroy)(stream);
    DNNL(dnnl_engine_destroy)(engine);
    return 0;
}
