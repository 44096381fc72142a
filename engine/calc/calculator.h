/* The calculator (backend) interface: every latency type fills the same table,
 * with designated initialisers. The analytic MAC counters are in
 * calc/mac_calculator.c, the cpu backend (oneDNN) in host/, the cuda backend
 * (cuDNN / cuBLAS / own kernels) in kernels/; each of the two timed backends has a
 * stub for builds without its library, sharing its descriptor. */
#ifndef SSLAT_CALCULATOR_H
#define SSLAT_CALCULATOR_H

#include "calc/options.h"
#include "ir/graph.h"
#include "ir/space.h"
#include "measure/quality.h"

/* Bumped when the table's slots change, so an out-of-tree backend built
 * against another layout is refused (sslat_calculator_check). */
#define SSLAT_CALCULATOR_API_VERSION 5

typedef enum sslat_calc_kind {
    SSLAT_CALC_ANALYTIC, /* counts from the IR alone: exact, instant */
    SSLAT_CALC_TIMED,    /* runs the subgraphs and times them */
} sslat_calc_kind;

/* "analytic" / "timed". */
const char *sslat_calc_kind_name(sslat_calc_kind kind);

/* A work unit: one distinct subgraph of the space, as the run found it. The
 * run hands it to the backend whole, so no backend hashes a graph again or
 * scans the space to learn where it came from. */
typedef struct sslat_unit {
    const sslat_graph *graph;
    uint64_t hash;          /* sslat_graph_hash(graph) */
    int32_t layer;          /* its first occurrence in the space: layer index, */
    int32_t candidate;      /* candidate index, */
    const char *layer_name; /* and their names */
    const char *label;
    bool fixed;             /* a layer of the constant part (not a NAS block) */
} sslat_unit;

typedef struct sslat_calculator sslat_calculator;
struct sslat_calculator {
    int api_version;      /* SSLAT_CALCULATOR_API_VERSION */
    const char *name;     /* the latency type, e.g. "mac_fvcore" (table/latency_type.c gives its unit) */
    sslat_calc_kind kind;
    const char *summary;  /* one line for `sslat calculators` */
    unsigned dtypes;      /* SSLAT_DTYPE_BIT mask of the dtypes it measures */
    const void *context;  /* the backend's own constant data (the MAC rule of a counter), or NULL */
    unsigned options_read; /* SSLAT_READS_* mask: the options beyond the common ones it reads */
    /* NULL when it can run here, else a one-line reason it cannot. (optional: NULL = always) */
    const char *(*unavailable_reason)(void);
    /* Whether the backend handles this primitive. (optional: NULL = all) */
    bool (*supports_op)(const sslat_node *node);
    /* Open a session (engine, stream, handles) for a run. The plan (never
     * NULL here) is for its stop request and whether to speak on stderr; the
     * session keeps what it needs of it. (optional) */
    sslat_status (*begin)(const sslat_calculator *self, const sslat_calc_options *options,
                          const sslat_run_plan *plan, void **session, sslat_error *err);
    /* Value and statistics of one unit, per sample (timed: batch time / N). */
    sslat_status (*measure_graph)(const sslat_calculator *self, void *session, const sslat_unit *unit,
                                  const sslat_calc_options *options, sslat_entry *entry, sslat_error *err);
    /* Entries of n distinct units at once, so a backend can interleave their
     * samples in time and machine-level drift spreads over all of them.
     * (optional: NULL = measure_graph one by one) */
    sslat_status (*measure_many)(const sslat_calculator *self, void *session, const sslat_unit *units, size_t n,
                                 const sslat_calc_options *options, sslat_entry *entries, sslat_error *err);
    /* The unit's output computed once, as the backend runs it in these
     * options (mode, dtype, layout), with the seeded input and weights every
     * backend uses: out gets the output node's elements in NCHW order, as
     * floats. What tests/test_backend_ops.cc checks every backend with
     * against the plain-C reference. (optional: NULL = not checked) */
    sslat_status (*compute)(const sslat_calculator *self, void *session, const sslat_unit *unit,
                            const sslat_calc_options *options, float *out, sslat_error *err);
    /* Whole architectures (each the constant part and its candidates, in
     * order, run as one network), ms[k] per sample of archs[k]: what `sslat
     * validate` compares a table with. A backend may interleave their samples
     * so the machine's drift lands on all of them. (optional: NULL = this
     * calculator cannot validate) */
    sslat_status (*measure_architectures)(const sslat_calculator *self, void *session,
                                          const sslat_space *space, const int32_t *const *archs, size_t n,
                                          const sslat_calc_options *options, double *ms, sslat_error *err);
    /* The kind of machine a run measures on ("AMD EPYC, 2 cores", "NVIDIA H200"),
     * and anything else of how it measures that a journal's records depend on,
     * in the run's fingerprint: a journal resumed on another kind of node (a
     * requeued Slurm job) is refused rather than mixing two machines. (optional) */
    void (*machine)(const sslat_calc_options *options, char *out, size_t size);
    /* What the run's machine watch has seen so far (the entries' spread
     * left NAN): written with each journal record, so a resumed table keeps
     * the verdict of the runs that measured its records. (optional: NULL =
     * no watch) */
    bool (*watch)(void *session, sslat_quality_input *so_far);
    /* Record device / software / option metadata of a run over space in the
     * container. (optional) */
    sslat_status (*describe)(const sslat_calculator *self, void *session, const sslat_space *space,
                             const sslat_calc_options *options, sslat_container *container,
                             sslat_error *err);
    /* Close the session. (optional) */
    void (*end)(void *session);
};

int sslat_calculator_count(void);
const sslat_calculator *sslat_calculator_at(int index);
/* NULL when no calculator has that name. enot.latency's names ("mmac.thop")
 * find their sslat calculator ("mac_thop"). */
const sslat_calculator *sslat_calculator_find(const char *name);
/* Unit of every value the calculator gives ("MMAC", "ms"). */
const char *sslat_calculator_unit(const sslat_calculator *calculator);
/* NULL when it can run here, else why not. */
const char *sslat_calculator_unavailable(const sslat_calculator *calculator);
/* SSLAT_OK when every option set beyond the defaults is one the calculator
 * reads (its options_read); else INVALID_ARGUMENT naming the option and the
 * calculators that do read it. */
sslat_status sslat_calculator_check_options(const sslat_calculator *calculator, const sslat_calc_options *options,
                                            sslat_error *err);

/* The registered backends: the four MAC counters (calc/mac_calculator.c), the
 * cpu backend (host/cpu_calculator.c, or host/cpu_stub.c) and the cuda backend
 * (kernels/cuda_calculator.c, or kernels/cuda_stub.c). */
extern const sslat_calculator sslat_mac_calculator, sslat_mac_thop_calculator,
    sslat_mac_fvcore_calculator, sslat_mac_pthflops_calculator;
extern const sslat_calculator sslat_cpu_calculator;
extern const sslat_calculator sslat_cuda_calculator;

#endif
