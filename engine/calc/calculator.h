/* The calculator (backend) interface: every latency type fills the same table.
 * Analytic MAC counters are in engine/, the cpu (oneDNN) backend in host/, the
 * cuda backend will plug in the same way. */
#ifndef SSLAT_CALCULATOR_H
#define SSLAT_CALCULATOR_H

#include "graph.h"
#include "mac.h"
#include "space.h"

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
/* "3" or "cuda:3" → 3; false for anything else. */
bool sslat_device_parse(const char *text, int32_t *device);

typedef struct sslat_calc_options {
    sslat_ignore_set ignore;   /* analytic: op kinds left out */
    sslat_exec_mode mode;      /* timed: fused (default) or eager */
    int32_t threads;           /* timed: worker threads, 0 = every core */
    int32_t warmup_iterations; /* timed: runs before timing (default 10) */
    int32_t run_iterations;    /* timed: timed runs (default 10; the minimum when adaptive) */
    double target_noise;       /* adaptive stop: 95% CI half-width of the median / median (0 = off) */
    double max_seconds;        /* adaptive stop: time cap per subgraph (default 2 s) */
    uint64_t seed;             /* timed: random inputs and weights */
    sslat_dtype dtype;         /* timed: element type (default fp32) */
    sslat_layout layout;       /* timed: activation layout (default: by dtype) */
    int32_t device;            /* cuda: device index, -1 = from LOCAL_RANK & co. (default) */
    bool cold;                 /* cuda: L2 flushed before each sample (default: hot) */
    bool profile;              /* cuda: each unit once more between cudaProfilerStart / Stop */
    const sslat_space *space;  /* set by sslat_calculate_space: names units in progress and NVTX */
    int32_t replicas;          /* cpu: copies per timing program, 0 = enough to exceed 2x L2 */
    int32_t shard_index;       /* measure only shard shard_index of shard_count (count ≤ 1: all) */
    int32_t shard_count;
    struct sslat_journal *journal;  /* records finished units, re-uses recorded ones (may be NULL) */
    volatile int *stop;             /* set by a signal handler: stop after the current units (may be NULL) */
    bool progress;             /* progress on stderr (only when it is a terminal) */
} sslat_calc_options;

/* The defaults above. */
void sslat_calc_options_default(sslat_calc_options *options);

typedef struct sslat_calculator sslat_calculator;
struct sslat_calculator {
    const char *name;    /* the latency_type, e.g. "mac_fvcore" */
    const char *kind;    /* "analytic" or "timed" */
    const char *unit;    /* unit of every value: "MMAC", "ms" */
    const char *summary; /* one line for `sslat calculators` */
    /* NULL when it can run here, else a one-line reason it cannot. */
    const char *(*unavailable_reason)(void);
    /* Whether the backend handles this primitive. (optional: NULL = all) */
    bool (*supports_op)(const sslat_node *node);
    /* Open a session (engine, stream, handles) for a run. (optional) */
    sslat_status (*begin)(const sslat_calculator *self, const sslat_calc_options *options,
                          void **session, sslat_error *err);
    /* Value and statistics of one subgraph, per sample (timed: batch time / N). */
    sslat_status (*measure_graph)(const sslat_calculator *self, void *session,
                                  const sslat_graph *graph, const sslat_calc_options *options,
                                  sslat_entry *entry, sslat_error *err);
    /* Entries of n distinct subgraphs at once, so a backend can interleave their
     * samples in time and machine-level drift spreads over all of them.
     * (optional: NULL = measure_graph one by one) */
    sslat_status (*measure_many)(const sslat_calculator *self, void *session,
                                 const sslat_graph *const *graphs, size_t n,
                                 const sslat_calc_options *options, sslat_entry *entries,
                                 sslat_error *err);
    /* Record device / software / option metadata in the container. (optional) */
    sslat_status (*describe)(const sslat_calculator *self, void *session,
                             const sslat_calc_options *options, sslat_container *container,
                             sslat_error *err);
    /* Close the session. (optional) */
    void (*end)(void *session);
    int rule; /* MAC rule of the analytic counters, -1 for the others */
    unsigned dtypes; /* SSLAT_DTYPE_BIT mask of the dtypes it measures */
};

int sslat_calculator_count(void);
const sslat_calculator *sslat_calculator_at(int index);
/* NULL when no calculator has that name. enot.latency's names ("mmac.thop")
 * find their sslat calculator ("mac_thop"). */
const sslat_calculator *sslat_calculator_find(const char *name);
/* The sslat name of a latency type ("mmac.thop" → "mac_thop"); others unchanged. */
const char *sslat_latency_type_canonical(const char *name);

/* Run a calculator over a space into a container of the space's shape: the
 * constant part (fixed layers combined) and every candidate's entry, plus the
 * calculator's metadata. Identical subgraphs (same canonical hash, which
 * covers the input shape) are measured once. Fails with SSLAT_ERR_UNSUPPORTED
 * naming the calculator when it cannot run here. */
sslat_status sslat_calculate_space(const sslat_calculator *calculator, const sslat_space *space,
                                   const sslat_calc_options *options, sslat_container *container,
                                   sslat_error *err);

/* Fingerprint of a run: space, calculator and every option that changes a
 * value (a journal from another run is refused). */
uint64_t sslat_run_fingerprint(const sslat_calculator *calculator, const sslat_space *space,
                               const sslat_calc_options *options);

/* Balance work units over shards: longest cost first onto the least loaded
 * shard (ties: the lower index); deterministic. shard_of[k] receives unit k's shard. */
void sslat_shard_assign(const double *costs, size_t n, int32_t count, int32_t *shard_of);

/* Total candidates over all NAS blocks. */
size_t sslat_space_total_candidates(const sslat_space *space);

/* The cpu backend's table entry (host/cpu_calculator.c), or a stub saying why
 * this build has none. */
extern const sslat_calculator sslat_cpu_calculator;
/* The cuda backend's (engine/cuda_calculator.c), or engine/cuda_stub.c's. */
extern const sslat_calculator sslat_cuda_calculator;

#endif
