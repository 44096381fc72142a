/* What a calculator is asked to measure: the element type, layout and mode of
 * a timed run, its sampling, and the options one backend alone reads. */
#ifndef SSLAT_CALC_OPTIONS_H
#define SSLAT_CALC_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "calc/mac.h"
#include "measure/parameters.h" /* SSLAT_DEFAULT_SEED */

typedef enum sslat_exec_mode {
    SSLAT_MODE_FUSED, /* conv + BN + act (+ residual) as one primitive, as deployment runs it */
    SSLAT_MODE_EAGER, /* one primitive per op */
} sslat_exec_mode;

/* Element type of a timed run. tf32 is fp32 storage with TF32 tensor-core math. */
typedef enum sslat_dtype {
    SSLAT_DTYPE_FP32,
    SSLAT_DTYPE_TF32,
    SSLAT_DTYPE_FP16,
    SSLAT_DTYPE_BF16,
    SSLAT_DTYPE_COUNT
} sslat_dtype;

/* Activation layout; DEFAULT = NHWC for fp16/bf16, NCHW otherwise. */
typedef enum sslat_layout { SSLAT_LAYOUT_DEFAULT, SSLAT_LAYOUT_NCHW, SSLAT_LAYOUT_NHWC } sslat_layout;

#define SSLAT_DTYPE_BIT(d) (1u << (d))
#define SSLAT_DTYPES_ALL ((1u << SSLAT_DTYPE_COUNT) - 1u)

/* "fp32" … "bf16"; false for anything else. */
bool sslat_dtype_parse(const char *text, sslat_dtype *dtype);
const char *sslat_dtype_name(sslat_dtype dtype);
/* "nchw" / "nhwc" (any case); false for anything else. */
bool sslat_layout_parse(const char *text, sslat_layout *layout);
/* The layout a run uses: the given one, or the dtype's default. */
sslat_layout sslat_layout_resolve(sslat_layout layout, sslat_dtype dtype);
const char *sslat_layout_name(sslat_layout layout);
/* Which cuDNN API the cuda backend calls for convolutions: the legacy calls
 * (cudnnConvolutionForward, Find) or the graph (backend) API with engines
 * chosen by heuristics and timed by sslat (kernels/cuda_graph.c). DEFAULT
 * (not asked for) is the legacy API until a GPU run shows the graph path
 * right and faster. */
typedef enum sslat_cudnn_api {
    SSLAT_CUDNN_API_DEFAULT,
    SSLAT_CUDNN_API_LEGACY,
    SSLAT_CUDNN_API_GRAPH,
    SSLAT_CUDNN_API_COUNT
} sslat_cudnn_api;
/* "legacy" / "graph"; false for anything else. */
bool sslat_cudnn_api_parse(const char *text, sslat_cudnn_api *api);
/* The API a run uses: the given one, or the default's. */
sslat_cudnn_api sslat_cudnn_api_resolve(sslat_cudnn_api api);
/* "legacy" or "graph" (DEFAULT: the one it resolves to). */
const char *sslat_cudnn_api_name(sslat_cudnn_api api);
/* "3" or "cuda:3" → 3 (at most SSLAT_MAX_DEVICE_INDEX); false for anything else. */
bool sslat_device_parse(const char *text, int32_t *device);

/* Defaults of a timed run (sslat_calc_options_default). */
#define SSLAT_DEFAULT_WARMUP 10
#define SSLAT_DEFAULT_RUNS 10
#define SSLAT_DEFAULT_MAX_SECONDS 2.0

/* What a measurement is: the backends read these and nothing else. Every
 * field that can change a value is in the run's fingerprint (calc/run.c):
 * all but cuda.device (the machine's fingerprint names the GPU instead) and
 * cuda.profile (one more run, not a figure). How the run goes is apart, in
 * sslat_run_plan below. */
typedef struct sslat_calc_options {
    /* the analytic counters */
    sslat_ignore_set ignore;   /* op kinds left out */
    bool fuse_bn;              /* count with every BN folded into its conv */
    /* every timed backend */
    sslat_exec_mode mode;      /* fused (default) or eager */
    int32_t threads;           /* worker threads, 0 = every core */
    int32_t warmup_iterations; /* runs before timing */
    int32_t run_iterations;    /* timed runs (the minimum when adaptive) */
    double target_noise;       /* adaptive stop: 95% CI half-width of the median / median (0 = off) */
    double max_seconds;        /* adaptive stop: sampled time per unit (measure/stop.h) */
    uint64_t seed;             /* random inputs and weights */
    sslat_dtype dtype;         /* element type (default fp32) */
    sslat_layout layout;       /* activation layout (default: by dtype) */
    bool cold;                 /* cache mode: cold (evicted before each sample) or hot (default) */
    /* read by one backend only; each backend's table says which it reads
     * (sslat_calculator.options_read), and the others refuse them */
    struct {
        int32_t replicas;      /* copies per timing program, 0 = enough to exceed 2x L2 */
    } cpu;
    struct {
        int32_t device;        /* device index, -1 = from LOCAL_RANK & co. (default) */
        bool profile;          /* each unit once more between cudaProfilerStart / Stop */
        sslat_cudnn_api api;    /* convolutions through cuDNN's legacy or graph API (default: legacy) */
        /* the persistent selection cache's folder, or "off"; NULL: $SSLAT_SELECTION_CACHE, else the
         * user's cache folder (kernels/cuda_selection.h). Not in the fingerprint: it changes how long
         * choosing takes, not what is chosen for a machine */
        const char *selection_cache;
    } cuda;
} sslat_calc_options;

/* The options a backend may read beyond the common ones: a calculator's
 * options_read mask. An option set for a calculator whose mask lacks it is
 * refused by name (engine/api/latency.c), never silently ignored. */
enum {
    SSLAT_READS_IGNORE = 1u << 0,  /* ignore */
    SSLAT_READS_FUSE_BN = 1u << 1, /* fuse_bn */
    SSLAT_READS_COLD = 1u << 2,    /* cold */
    SSLAT_READS_LAYOUT = 1u << 3,  /* layout */
    SSLAT_READS_DEVICE = 1u << 4,  /* cuda.device */
    SSLAT_READS_PROFILE = 1u << 5, /* cuda.profile */
    SSLAT_READS_REPLICAS = 1u << 6, /* cpu.replicas */
    SSLAT_READS_CUDNN_API = 1u << 7, /* cuda.api */
    SSLAT_READS_SELECTION_CACHE = 1u << 8 /* cuda.selection_cache */
};

struct sslat_journal;

/* How a run goes, apart from what it measures (sslat_calc_options). None of
 * it changes a value; the shard is in the fingerprint all the same, because a
 * journal records one shard's units. */
typedef struct sslat_run_plan {
    int32_t shard_index;           /* measure only shard shard_index of shard_count (count <= 1: all) */
    int32_t shard_count;
    struct sslat_journal *journal; /* records finished units, re-uses recorded ones (may be NULL) */
    volatile int *stop;            /* set by a signal handler: stop after the current units (may be NULL) */
    bool keep_going;               /* a unit that fails gets an empty entry, marked failed in the table's
                                      metadata (table/failed_entries.c), and the run goes on */
    bool progress;                 /* progress on stderr (only when it is a terminal) */
} sslat_run_plan;

/* The defaults above. */
void sslat_calc_options_default(sslat_calc_options *options);

/* Worker threads a run may ask for: the machine's logical cores (more only
 * oversubscribes them: 4096 threads on 2 cores took 18.6 GB and never
 * progressed; 100000 crashed inside libgomp). */
int32_t sslat_max_threads(void);

/* Values a run can use: threads within 0..sslat_max_threads(), runs >= 1,
 * warmup >= 0, a finite non-negative noise target, a finite positive time cap;
 * the message names the option. */
sslat_status sslat_calc_options_check(const sslat_calc_options *options, sslat_error *err);

#endif
