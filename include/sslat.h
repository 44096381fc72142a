/* sslat — latency lookup tables for neural-architecture-search spaces.
 *
 * The one public header. Everything here is C11 and prefixed sslat_.
 * Ownership: every pointer a function returns through an out-parameter is
 * owned by the caller and freed with the matching *_free function (which
 * accepts NULL). Strings returned directly (const char *) are owned by the
 * object they came from and live as long as it does. */
#ifndef SSLAT_H
#define SSLAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function of this header is exported from libsslat.so; nothing else is
 * (the library is built with hidden visibility). */
#if defined(__GNUC__) || defined(__clang__)
#define SSLAT_API __attribute__((visibility("default")))
#else
#define SSLAT_API
#endif

/* The one place the version is written: CMake and the Python package read it
 * from these lines. While MAJOR is 0 every MINOR is its own ABI (the SONAME
 * is libsslat.so.0.MINOR): 0.2 added the leading size of the option structs. */
#define SSLAT_VERSION_MAJOR 0
#define SSLAT_VERSION_MINOR 2
#define SSLAT_VERSION_PATCH 0
#define SSLAT_VERSION_STRING "0.2.0"
/* MAJOR·10000 + MINOR·100 + PATCH, for comparisons: 0.2.0 is 200. */
#define SSLAT_VERSION_NUMBER (SSLAT_VERSION_MAJOR * 10000 + SSLAT_VERSION_MINOR * 100 + SSLAT_VERSION_PATCH)

/* The library's version at run time ("0.2.0"), and as a number; compare with
 * the macros to tell the header from the library actually loaded. */
SSLAT_API const char *sslat_version(void);
SSLAT_API int32_t sslat_version_number(void);

/* Status codes. Values are pinned: they are part of the ABI. */
typedef enum sslat_status {
    SSLAT_OK = 0,                   /* success */
    SSLAT_ERR_INVALID_ARGUMENT = 1, /* NULL or out-of-range argument from the caller */
    SSLAT_ERR_IO = 2,               /* a file could not be opened, read or written */
    SSLAT_ERR_PARSE = 3,            /* JSON syntax error or wrong file structure */
    SSLAT_ERR_SPACE = 4,            /* the search space is invalid (token, shape, arch) */
    SSLAT_ERR_LIMIT = 5,            /* the input exceeds a safety limit (size, depth, count) */
    SSLAT_ERR_NOMEM = 6,            /* an allocation failed */
    SSLAT_ERR_UNSUPPORTED = 7,      /* calculator or option not available in this build */
    SSLAT_ERR_NO_DEVICE = 8,        /* the calculator needs a device that is not present */
    SSLAT_ERR_INTERRUPTED = 9,      /* stopped by a signal; the journal keeps the work done */
    SSLAT_ERR_DEVICE = 10           /* the GPU or its library (CUDA, cuDNN, cuBLAS) reported an error */
} sslat_status;

/* A one-line description of a status ("search space invalid or not the
 * table's" for SSLAT_ERR_SPACE). Never NULL. */
SSLAT_API const char *sslat_status_string(sslat_status status);

/* Error details, filled by any function that takes one (it may be NULL).
 * message names what and where: file, JSON path, block, candidate. */
typedef struct sslat_error {
    sslat_status status;
    char message[512];
} sslat_error;

/* ---- Search spaces -------------------------------------------------------- */

/* A loaded search space: fixed layers (the constant part) and NAS blocks of
 * candidate subgraphs, all expanded into primitive operations. Its layers
 * never change after loading; the one thing that does is the latency table
 * attached to it (sslat_initialize_latency, attach, reset), which is why those
 * take a non-const space. */
typedef struct sslat_space sslat_space;

/* Overrides applied while loading (batch and resolution sweeps). Zero fields
 * keep the file's value. */
typedef struct sslat_space_options {
    int32_t batch;  /* N of every tensor */
    int32_t height; /* input H */
    int32_t width;  /* input W */
} sslat_space_options;

/* Load a search-space file (JSON, "sslat": 1; see docs/space-format.md).
 * options may be NULL. On failure *out is NULL and nothing is half-loaded. */
SSLAT_API sslat_status sslat_space_load_file(const char *path, const sslat_space_options *options,
                                   sslat_space **out, sslat_error *error);

/* Same, from memory. source_name is used in error messages ("<string>" if NULL). */
SSLAT_API sslat_status sslat_space_load_string(const char *text, size_t length, const char *source_name,
                                     const sslat_space_options *options, sslat_space **out,
                                     sslat_error *error);

/* The built-in default space (a MobileNetV2-style space, compiled in). */
SSLAT_API sslat_status sslat_space_load_default(const sslat_space_options *options, sslat_space **out,
                                      sslat_error *error);

/* The built-in default space's JSON text (static storage). */
SSLAT_API const char *sslat_default_space_json(void);

SSLAT_API void sslat_space_free(sslat_space *space);

SSLAT_API const char *sslat_space_name(const sslat_space *space);
/* Canonical 64-bit hash of every subgraph with its input shape, in order. */
SSLAT_API uint64_t sslat_space_hash(const sslat_space *space);
/* Input as N, C, H, W. */
SSLAT_API void sslat_space_input_shape(const sslat_space *space, int32_t nchw[4]);
SSLAT_API int32_t sslat_space_block_count(const sslat_space *space);
/* Number of candidates of block (0 ≤ block < block_count), or -1. */
SSLAT_API int32_t sslat_space_candidate_count(const sslat_space *space, int32_t block);
/* The block's name ("blk03" or the file's "name"), or NULL when out of range. */
SSLAT_API const char *sslat_space_block_name(const sslat_space *space, int32_t block);
/* The candidate's label as a token ("ir_k5_e6_c40_s2"), or NULL. */
SSLAT_API const char *sslat_space_candidate_label(const sslat_space *space, int32_t block,
                                        int32_t candidate);
/* Number of architectures (product of candidate counts), as a double. */
SSLAT_API double sslat_space_architecture_count(const sslat_space *space);
/* The same, exactly, in decimal; returns the length it needs (like snprintf). */
SSLAT_API size_t sslat_space_architecture_count_string(const sslat_space *space, char *buffer,
                                             size_t capacity);
/* Learnable parameters (conv and linear weights and biases, BN's affine pair)
 * of one architecture (arch: one index per block; length must be the block
 * count, 0 for a fixed network). */
SSLAT_API sslat_status sslat_space_param_count(const sslat_space *space, const int32_t *arch, int32_t length,
                                               int64_t *count, sslat_error *error);
/* One architecture as one graph, in JSON: {"hash", "input", "nodes": [{"op",
 * "input" (earlier node indices, -1 the network input, -2 unused), "shape",
 * "params", and the op's own fields}]}; node i's parameters are the seeded
 * values of node i (sslat_parameter_values). Free *json with sslat_free. */
SSLAT_API sslat_status sslat_space_architecture_json(const sslat_space *space, const int32_t *arch, int32_t length,
                                                     char **json, sslat_error *error);

/* The parameters of a node, as sslat_parameter_values numbers them. Pinned:
 * part of the ABI (the Python package passes them as integers). */
typedef enum sslat_parameter_role {
    SSLAT_ROLE_WEIGHTS = 0,  /* uniform in ±sqrt(3 / fan_in) */
    SSLAT_ROLE_BIAS = 1,     /* ±0.1 */
    SSLAT_ROLE_GAMMA = 2,    /* BN gamma, [0.5, 1.5] */
    SSLAT_ROLE_BETA = 3,     /* BN beta, ±0.5 */
    SSLAT_ROLE_MEAN = 4,     /* BN running mean, ±0.2 */
    SSLAT_ROLE_VARIANCE = 5  /* BN running variance, [0.5, 1.5] */
} sslat_parameter_role;

/* The seeded values the calculators give a node's parameter (the same on the
 * host, the device and in ONNX exports); role is an sslat_parameter_role.
 * seed 0 means the default seed. */
SSLAT_API void sslat_parameter_values(uint64_t seed, int32_t node, int32_t role, int64_t fan_in, float *out,
                                      size_t count);
/* The file's "arch": copies up to capacity indices; returns its length
 * (block_count) or 0 when the file has none. */
SSLAT_API int32_t sslat_space_arch(const sslat_space *space, int32_t *arch, int32_t capacity);

/* ---- ONNX export -------------------------------------------------------------- */

/* Options of an ONNX export; zero-initialise, then set what you need. */
typedef struct sslat_onnx_options {
    uint64_t seed; /* weights and BN statistics: 0 = the default seed (the timed calculators') */
} sslat_onnx_options;

/* One architecture of the space (arch: one candidate index per NAS block;
 * NULL with 0 blocks) as an ONNX model: opset 17, fp32, the input shape the
 * space was loaded with (batch and resolution overrides included), the seeded
 * weights the timed calculators run, BatchNormalization unfused. Written
 * atomically to path (docs/onnx.md). SSLAT_ERR_UNSUPPORTED when this build
 * has no ONNX support (protobuf-c and ONNX's onnx.proto). */
SSLAT_API sslat_status sslat_space_export_onnx(const sslat_space *space, const int32_t *arch,
                                               int32_t arch_length, const sslat_onnx_options *options,
                                               const char *path, sslat_error *error);

/* ---- Calculators ------------------------------------------------------------ */

/* Names of the calculators that can run in this build on this machine, best
 * last (static storage). Returns the count; names may be NULL. */
SSLAT_API int32_t sslat_available_calculators(const char *const **names);

/* Analytic MAC counts (latency types mac, mac_thop, mac_fvcore, mac_pthflops),
 * in millions, for the whole input batch. ignore is a comma-separated list of
 * op kinds ("batchnorm,act") or activation names ("relu6"), or NULL.
 * constant receives the constant part; per_op receives, block after block,
 * one value per candidate (capacity = total candidates). */
SSLAT_API sslat_status sslat_mac_count(const sslat_space *space, const char *latency_type,
                             const char *ignore, double *constant, double *per_op,
                             size_t per_op_capacity, sslat_error *error);

/* ---- Containers (latency tables) ------------------------------------------- */

/* One latency table: the constant part and one entry per candidate of every
 * NAS block, with statistics and metadata. File format: docs/format.md. */
typedef struct sslat_container sslat_container;

/* Statistics of one entry. For analytic calculators every figure equals value
 * and samples is 1. All reals are finite and >= 0. */
typedef struct sslat_entry {
    double value;  /* the figure statistics use (timed: the median, per sample) */
    double median, mean, stddev, min, max;
    uint32_t samples;
} sslat_entry;

/* enot.latency's constructor: latency_type ("mac", "cuda", …), the constant part,
 * and block_count blocks of candidate_counts[b] values each, flattened block
 * after block in operations_latencies. The unit follows the type. */
SSLAT_API sslat_status sslat_container_create(const char *latency_type, double constant_latency,
                                    const double *operations_latencies,
                                    const int32_t *candidate_counts, int32_t block_count,
                                    sslat_container **out, sslat_error *error);
SSLAT_API sslat_status sslat_container_clone(const sslat_container *container, sslat_container **out,
                                   sslat_error *error);
SSLAT_API void sslat_container_free(sslat_container *container);

/* Serialisation. save_to_bytes returns a buffer the caller frees with sslat_free. */
SSLAT_API sslat_status sslat_container_save_to_bytes(const sslat_container *container, uint8_t **bytes,
                                           size_t *size, sslat_error *error);
SSLAT_API sslat_status sslat_container_load_from_bytes(const uint8_t *bytes, size_t size,
                                             sslat_container **out, sslat_error *error);
/* Files. A regular file is written atomically (temp file beside it, fsync,
 * rename); a symbolic link is written through; a FIFO or character device is
 * written directly; a directory is refused. save_to_file writes the binary
 * container; save_to_file_as writes format "sslat", "enot" (pickle) or "json".
 * load_from_file reads any of the three, told apart by their first bytes, and
 * at most 256 MiB. */
SSLAT_API sslat_status sslat_container_save_to_file(const sslat_container *container, const char *path,
                                          sslat_error *error);
SSLAT_API sslat_status sslat_container_save_to_file_as(const sslat_container *container, const char *path,
                                                       const char *format, sslat_error *error);
SSLAT_API sslat_status sslat_container_load_from_file(const char *path, sslat_container **out,
                                            sslat_error *error);
/* JSON (every field, exact round trip) and CSV (one row per block × candidate).
 * *text is NUL-terminated; the caller frees it with sslat_free. */
SSLAT_API sslat_status sslat_container_export_json(const sslat_container *container, char **text,
                                         sslat_error *error);
SSLAT_API sslat_status sslat_container_import_json(const char *text, size_t length,
                                         sslat_container **out, sslat_error *error);
SSLAT_API sslat_status sslat_container_export_csv(const sslat_container *container, char **text,
                                        sslat_error *error);
/* ENOT latency files (a pickle of {"latency_type", "constant_latency",
 * "operations_latencies"}). The reader is a strict pickle machine for exactly
 * that structure (plain floats or numpy float64 scalars); it refuses anything
 * else and executes nothing. The writer emits protocol 2 with plain floats
 * (caller frees *bytes with sslat_free). */
SSLAT_API sslat_status sslat_container_import_enot(const uint8_t *bytes, size_t size, sslat_container **out,
                                         sslat_error *error);
SSLAT_API sslat_status sslat_container_export_enot(const sslat_container *container, uint8_t **bytes,
                                         size_t *size, sslat_error *error);

/* Frees memory the library handed over (bytes, text). Accepts NULL. */
SSLAT_API void sslat_free(void *pointer);

/* Accessors. Strings belong to the container. */
SSLAT_API const char *sslat_container_latency_type(const sslat_container *container);
SSLAT_API const char *sslat_container_unit(const sslat_container *container);
/* A value table (latency type "value": a user's per-candidate values such as
 * accuracy-predictor terms, energy or memory, higher is better where a
 * command maximises them) is named when it is made: name (1 to 40 printable
 * characters, no quote, backslash or comma, not a latency type's name) and
 * unit (0 to 16, e.g. "%"); metadata value.name and unit. Other tables keep
 * their type's name and unit (SSLAT_ERR_INVALID_ARGUMENT). */
SSLAT_API sslat_status sslat_container_name_values(sslat_container *container, const char *name, const char *unit,
                                                   sslat_error *error);
/* What a table's figures are called: a value table's name ("top1"), else its
 * latency type ("mac_fvcore", "cpu"). */
SSLAT_API const char *sslat_container_value_name(const sslat_container *container);
SSLAT_API double sslat_container_constant_latency(const sslat_container *container);
SSLAT_API sslat_entry sslat_container_constant_entry(const sslat_container *container);
SSLAT_API int32_t sslat_container_block_count(const sslat_container *container);
/* -1 when block is out of range. */
SSLAT_API int32_t sslat_container_candidate_count(const sslat_container *container, int32_t block);
/* The value of one candidate; NaN when out of range. */
SSLAT_API double sslat_container_latency(const sslat_container *container, int32_t block,
                               int32_t candidate);
SSLAT_API sslat_status sslat_container_entry(const sslat_container *container, int32_t block,
                                   int32_t candidate, sslat_entry *entry, sslat_error *error);
/* SSLAT_OK when every value of the table is a measured figure; otherwise
 * INVALID_ARGUMENT saying why not: a table of the tests' stand-in device
 * (metadata "standin"), an incomplete one (measure --keep-going: metadata
 * quality.failed_entries) or one shard's part. What every statistic checks. */
SSLAT_API sslat_status sslat_container_check_complete(const sslat_container *container, sslat_error *error);
/* 1 when the entry failed in the run that made the table, so its stored
 * value is no latency (block -1: the constant part); else 0. */
SSLAT_API int sslat_container_entry_is_failed(const sslat_container *container, int32_t block,
                                              int32_t candidate);
/* "" when the container has no labels. NULL when out of range. */
SSLAT_API const char *sslat_container_block_name(const sslat_container *container, int32_t block);
SSLAT_API const char *sslat_container_candidate_label(const sslat_container *container, int32_t block,
                                            int32_t candidate);
SSLAT_API const char *sslat_container_space_name(const sslat_container *container);
SSLAT_API uint64_t sslat_container_space_hash(const sslat_container *container);
/* N, C, H, W of the measured input (zeros when not bound to a space). */
SSLAT_API void sslat_container_input_shape(const sslat_container *container, int32_t nchw[4]);
SSLAT_API int32_t sslat_container_batch(const sslat_container *container);
SSLAT_API const char *sslat_container_dtype(const sslat_container *container);
SSLAT_API const char *sslat_container_layout(const sslat_container *container);
SSLAT_API const char *sslat_container_tool_version(const sslat_container *container);
SSLAT_API const char *sslat_container_created(const sslat_container *container);
/* Every metadata pair (latency_type and unit included), in a stable order. */
SSLAT_API int32_t sslat_container_metadata_count(const sslat_container *container);
SSLAT_API sslat_status sslat_container_metadata_at(const sslat_container *container, int32_t index,
                                         const char **key, const char **value);
/* NULL when absent. */
SSLAT_API const char *sslat_container_metadata(const sslat_container *container, const char *key);

/* A note of the caller's in the table's metadata (kept by every format).
 * Keys must not be latency_type or unit (fixed at creation). */
SSLAT_API sslat_status sslat_container_set_metadata(sslat_container *container, const char *key,
                                                    const char *value, sslat_error *error);

#ifdef SSLAT_STATIC_LINKING_ONLY
/* ---- Unstable: for calculators and importers -------------------------------
 * What sslat's own backends and importers fill a table with. These may change
 * between any two versions: use them only against the sslat.h your library
 * was built with (as zstd's ZSTD_STATIC_LINKING_ONLY). A table built with
 * sslat_container_create and read back needs none of them. */
SSLAT_API sslat_status sslat_container_set_entry(sslat_container *container, int32_t block,
                                                 int32_t candidate, const sslat_entry *entry,
                                                 sslat_error *error);
SSLAT_API sslat_status sslat_container_set_constant_entry(sslat_container *container,
                                                          const sslat_entry *entry, sslat_error *error);
/* Record the space: name, hash, input shape, block names and candidate labels.
 * Fails when the space's blocks do not match the table's shape. */
SSLAT_API sslat_status sslat_container_bind_space(sslat_container *container, const sslat_space *space,
                                                  sslat_error *error);
#endif

/* A shard's part (sslat measure --shard I/N): returns 1 and its index and count,
 * or 0 for a whole table. Statistics and exports refuse parts. */
SSLAT_API int32_t sslat_container_shard(const sslat_container *container, int32_t *index, int32_t *count);

/* One whole table from the n parts of a sharded run. Checks that every part
 * comes from the same space, latency type and calculator options, that the
 * shards 0..N-1 are each there exactly once, and that every entry is measured
 * by exactly one part; error messages list what is missing or duplicated. */
SSLAT_API sslat_status sslat_container_merge(const sslat_container *const *parts, size_t n,
                                   sslat_container **out, sslat_error *error);

/* ---- The reference API: latency attached to a space --------------------------- */

/* warmup_iterations of sslat_latency_options: no warmup runs asked for (0
 * means the default 10). Each timed backend still runs a unit before timing
 * it: the cpu backend once, the cuda backend for at least 5 ms of GPU time
 * (a first run pays for lazy initialisation, never a figure to keep). */
#define SSLAT_NO_WARMUP (-1)

/* Options of sslat_initialize_latency; zero fields take the defaults, so
 * `sslat_latency_options o = SSLAT_LATENCY_OPTIONS_INIT;` is the reference's
 * behaviour. size makes the struct versioned: sizeof(sslat_latency_options)
 * as the caller compiled it; a library of another layout refuses a size it
 * does not know, and a size of 0 (a caller that did not say, e.g. `= {0}`),
 * with INVALID_ARGUMENT, instead of reading past the caller's struct. (Pass
 * NULL for every default.) */
typedef struct sslat_latency_options {
    uint32_t size;             /* sizeof(sslat_latency_options) as the caller compiled it */
    const char *ignore;        /* analytic: op kinds left out ("batchnorm,act") */
    int32_t warmup_iterations; /* timed: runs before timing (0 = the default 10; SSLAT_NO_WARMUP = none) */
    int32_t run_iterations;    /* timed: timed runs (default 10) */
    int32_t threads;           /* timed (cpu): worker threads, at most the machine's cores (0 = every core) */
    int32_t eager;             /* timed: 1 = one primitive per op, 0 = fused (default) */
    double target_noise;       /* timed: adaptive stop on the median's relative 95% CI (0 = off) */
    double max_seconds;        /* timed: adaptive time cap per subgraph (default 2) */
    uint64_t seed;             /* timed: random inputs and weights (0 = the default seed) */
    const char *dtype;         /* timed: "fp32" (default), "tf32", "fp16", "bf16" */
    const char *layout;        /* cuda: "nchw" or "nhwc" (default: nhwc for fp16/bf16) */
    const char *device;        /* cuda: "0", "cuda:1" (default: LOCAL_RANK & co. modulo the count, else 0) */
    int32_t cold;              /* timed: 1 = cold cache (cuda: L2 flushed before each sample; cpu: units
                                  interleaved, copies past 2x L2); default 0 = hot (back to back) */
    int32_t fuse_bn;           /* analytic: 1 = count with every BN folded into the conv before it */
    int32_t context_architectures; /* timed: refit to this many whole architectures timed end to end (0 = off) */
} sslat_latency_options;
/* Every field 0 (the defaults), size set. */
#ifdef __cplusplus
#define SSLAT_LATENCY_OPTIONS_INIT                                                                                    \
    ([] {                                                                                                              \
        sslat_latency_options o{};                                                                                     \
        o.size = (uint32_t)sizeof o;                                                                                   \
        return o;                                                                                                      \
    }())
#else
#define SSLAT_LATENCY_OPTIONS_INIT {.size = (uint32_t)sizeof(sslat_latency_options)}
#endif

/* Compute a latency table of latency_type for the space and attach it to the
 * space (replacing any earlier one). inputs must be NULL or equal the space's
 * input (load the space with sslat_space_options to measure other inputs);
 * options may be NULL. *out is owned by the space: valid until
 * sslat_reset_latency or sslat_space_free; clone it to keep it longer. */
SSLAT_API sslat_status sslat_initialize_latency(const char *latency_type, sslat_space *space,
                                      const sslat_space_options *inputs,
                                      const sslat_latency_options *options,
                                      sslat_container **out, sslat_error *error);
/* Attach a copy of a container (e.g. loaded from a file): its space hash must match. */
SSLAT_API sslat_status sslat_attach_latency(sslat_space *space, const sslat_container *container,
                                  sslat_error *error);
/* The attached container, or NULL; owned by the space (change it through the
 * space: initialize, attach, reset). */
SSLAT_API const sslat_container *sslat_space_latency(const sslat_space *space);
/* Drop the attached container. */
SSLAT_API void sslat_reset_latency(sslat_space *space);

/* ---- Statistics over a container --------------------------------------------- */

/* constant + Σ per-block min / max / mean. */
SSLAT_API sslat_status sslat_min_latency(const sslat_container *container, double *latency,
                               sslat_error *error);
SSLAT_API sslat_status sslat_max_latency(const sslat_container *container, double *latency,
                               sslat_error *error);
SSLAT_API sslat_status sslat_mean_latency(const sslat_container *container, double *latency,
                                sslat_error *error);
/* Latencies of n uniformly random architectures (each block's candidate drawn
 * uniformly and independently), reproducible from seed. */
SSLAT_API sslat_status sslat_sample_latencies(const sslat_container *container, size_t n, uint64_t seed,
                                    double *latencies, sslat_error *error);
/* Median of sample_latencies(n, seed) (enot.latency's median_latency). */
SSLAT_API sslat_status sslat_median_latency(const sslat_container *container, size_t n, uint64_t seed,
                                  double *latency, sslat_error *error);
/* Latency of one architecture (length must equal the block count). */
SSLAT_API sslat_status sslat_current_latency(const sslat_container *container, const int32_t *arch,
                                   int32_t length, double *latency, sslat_error *error);
/* Latency of the space's "arch"; refused when the space is not the container's. */
SSLAT_API sslat_status sslat_best_arch_latency(const sslat_container *container, const sslat_space *space,
                                     double *latency, sslat_error *error);
/* The fastest / slowest architecture (capacity ≥ block count). */
SSLAT_API sslat_status sslat_argmin_arch(const sslat_container *container, int32_t *arch, int32_t capacity,
                               sslat_error *error);
SSLAT_API sslat_status sslat_argmax_arch(const sslat_container *container, int32_t *arch, int32_t capacity,
                               sslat_error *error);

/* Distribution of a uniformly random architecture's latency, computed exactly
 * on a grid of `bins` steps over [min, max] (0 = 65536): each candidate's value
 * is rounded down and up to the grid, giving distributions that bracket the true
 * one. Every figure comes with a bound the true value is guaranteed within. */
typedef struct sslat_distribution_options {
    int32_t bins;
} sslat_distribution_options;

/* Quantile p in [0, 1]: the smallest latency L with P(latency ≤ L) ≥ p.
 * *estimate ± *bound contains the exact quantile. */
SSLAT_API sslat_status sslat_latency_quantile(const sslat_container *container, double p,
                                    const sslat_distribution_options *options, double *estimate,
                                    double *bound, sslat_error *error);
/* P(latency ≤ budget), bracketed: low ≤ exact ≤ high. */
SSLAT_API sslat_status sslat_latency_cdf(const sslat_container *container, double budget,
                               const sslat_distribution_options *options, double *low,
                               double *high, sslat_error *error);
/* Number of architectures with latency ≤ budget, bracketed (as reals: counts
 * exceed 2^64 in large spaces). */
SSLAT_API sslat_status sslat_count_under_budget(const sslat_container *container, double budget,
                                      const sslat_distribution_options *options, double *low,
                                      double *high, sslat_error *error);

/* The architecture maximising value's total (e.g. a MAC container of the same
 * space) subject to latency ≤ budget: multiple-choice knapsack, exact on a grid
 * of `bins` steps (0 = 32768) over [0, budget − min]. Latencies are rounded up,
 * so the answer always fits the budget; it is at least as good as the best
 * architecture within budget − grid_slack (reported). Fails with SSLAT_ERR_SPACE
 * when no architecture fits. */
typedef struct sslat_budget_result {
    double latency;     /* of the chosen architecture (exact, not rounded) */
    double value;       /* its total in the value container */
    double grid_slack;  /* block_count × grid step */
} sslat_budget_result;

SSLAT_API sslat_status sslat_budget_maximize(const sslat_container *latency, const sslat_container *value,
                                   double budget, int32_t bins, int32_t *arch, int32_t capacity,
                                   sslat_budget_result *result, sslat_error *error);

/* The k architectures with the largest value totals within the budget, best
 * first: the same knapsack keeping the k best of every grid cell. archs holds
 * k rows of `capacity` indices (capacity ≥ block count), results k entries;
 * *found says how many were filled (fewer than k when fewer architectures fit
 * the grid). The i-th answer fits the budget and is at least as good as the
 * i-th best architecture within budget − grid_slack. k is 1 to 1000; with
 * many blocks × k the grid gets coarser (a larger slack, reported). */
SSLAT_API sslat_status sslat_budget_top(const sslat_container *latency, const sslat_container *value,
                                        double budget, int32_t bins, int32_t k, int32_t *archs,
                                        int32_t capacity, sslat_budget_result *results, int32_t *found,
                                        sslat_error *error);

/* The Pareto front of (latency ↓, value ↑) over the whole space, where value
 * is a MAC or parameter table, or any per-candidate table of the same space
 * (e.g. an accuracy predictor's additive scores). Exact (slack 0) unless the
 * front passes the memory limits (millions of points): it is then thinned on
 * a latency grid, and every architecture is matched by a returned point with
 * at least its value and at most `slack` more latency. `points` = 0 returns
 * the whole front; N ≥ 2 returns at most N of its points, spread evenly in
 * latency from the fastest to the best-valued (for each of N budgets the best
 * point within it). Points come fastest first; free with sslat_pareto_free. */
typedef struct sslat_pareto_front sslat_pareto_front;

SSLAT_API sslat_status sslat_pareto_compute(const sslat_container *latency, const sslat_container *value,
                                            int32_t points, sslat_pareto_front **front, sslat_error *error);
SSLAT_API void sslat_pareto_free(sslat_pareto_front *front);
/* Points returned, and points on the computed front (thinned, when slack > 0). */
SSLAT_API int32_t sslat_pareto_size(const sslat_pareto_front *front);
SSLAT_API int64_t sslat_pareto_front_size(const sslat_pareto_front *front);
/* 0 when the front is exact; else the latency bound above. */
SSLAT_API double sslat_pareto_slack(const sslat_pareto_front *front);
/* Point `index`: its architecture (NULL: not wanted; capacity ≥ block count),
 * latency and value totals (NULL: not wanted). */
SSLAT_API sslat_status sslat_pareto_point(const sslat_pareto_front *front, int32_t index, int32_t *arch,
                                          int32_t capacity, double *latency, double *value,
                                          sslat_error *error);

/* ---- Report ------------------------------------------------------------------ */

/* A table as one self-contained HTML page (inline SVG, no script, no network)
 * that prints or saves as PDF cleanly: how the table was made (calculator,
 * device, threads, cache mode, quality verdict and noise, drift, fallbacks),
 * a heat map of every candidate labelled on its axes and shaded by noise, the
 * distribution over the space, MACs against latency, the Pareto front, and
 * predicted against measured with labelled points. Every field may be 0/NULL. */
typedef struct sslat_report_options {
    uint32_t size;                 /* versioned as sslat_latency_options: sizeof(sslat_report_options) */
    const char *table_name;        /* shown as the table's name (NULL: not shown) */
    const sslat_space *space;      /* the table's space: exact count, its "arch" */
    const sslat_container *mac;    /* a MAC table of the same space: MACs vs latency */
    const sslat_container *value;  /* the front of latency against this table (NULL: against mac) */
    const int32_t *arch;           /* the current architecture (NULL: the space's "arch") */
    int32_t arch_length;
    const char *validation_json;   /* the text `sslat validate --json` printed */
    const char *validation_name;   /* where it came from, for messages ("v.json") */
    int32_t samples;               /* random architectures in the histogram (0: 20000) */
    uint64_t seed;                 /* of those samples */
} sslat_report_options;
/* Every field 0/NULL, size set. */
#ifdef __cplusplus
#define SSLAT_REPORT_OPTIONS_INIT                                                                                     \
    ([] {                                                                                                              \
        sslat_report_options o{};                                                                                      \
        o.size = (uint32_t)sizeof o;                                                                                   \
        return o;                                                                                                      \
    }())
#else
#define SSLAT_REPORT_OPTIONS_INIT {.size = (uint32_t)sizeof(sslat_report_options)}
#endif

/* *html is NUL-terminated; the caller frees it with sslat_free. */
SSLAT_API sslat_status sslat_report_html(const sslat_container *table, const sslat_report_options *options,
                                         char **html, sslat_error *error);

/* ---- Figures ----------------------------------------------------------------- */

/* A reference network drawn as a labelled point: its latency (the fronts'
 * unit) and value (theirs). */
typedef struct sslat_plot_reference {
    const char *name;
    double latency, value;
} sslat_plot_reference;

typedef struct sslat_plot_options {
    uint32_t size;                          /* sizeof(sslat_plot_options), as sslat_report_options */
    const char *const *labels;              /* one legend label per front (NULL: made from each table) */
    const sslat_plot_reference *references; /* reference networks, labelled points */
    size_t reference_count;
    const int32_t *chosen;                  /* the chosen architecture of the first front's space, or NULL */
    int32_t chosen_length;
    int32_t numbered;                       /* points numbered on each front: 0 for 8, -1 for none, up to 50 */
    int32_t width_pt, height_pt;            /* 0: one column of a two-column paper, 252 x 189 pt */
} sslat_plot_options;
#ifdef __cplusplus
#define SSLAT_PLOT_OPTIONS_INIT                                                                                        \
    ([] {                                                                                                              \
        sslat_plot_options o{};                                                                                        \
        o.size = (uint32_t)sizeof o;                                                                                   \
        return o;                                                                                                      \
    }())
#else
#define SSLAT_PLOT_OPTIONS_INIT {.size = (uint32_t)sizeof(sslat_plot_options)}
#endif

/* A figure a paper can use: the Pareto fronts of latency (x, lower is better)
 * against a value (y, higher is better) of `fronts` pairs of tables on one
 * pair of axes (one latency unit, one value name and unit), each front a step
 * line with its tabulated points numbered on it (spread evenly in latency, as
 * `sslat pareto --points`), a band of ±1 standard deviation of latency where
 * the entries were timed, reference networks and the chosen architecture as
 * labelled points, a legend for several fronts. path ends in .svg (standalone
 * SVG) or .pdf (one page, standard fonts); no script, no network; written
 * atomically. */
SSLAT_API sslat_status sslat_plot_fronts(const sslat_container *const *latency, const sslat_container *const *value,
                                         size_t fronts, const sslat_plot_options *options, const char *path,
                                         sslat_error *error);

/* sizeof of a public struct as this library was built ("sslat_entry",
 * "sslat_latency_options", …), 0 for a name it does not know: a binding that
 * mirrors the structs (the Python package) checks its copies against it. */
SSLAT_API size_t sslat_struct_size(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* SSLAT_H */
