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

#define SSLAT_VERSION_MAJOR 0
#define SSLAT_VERSION_MINOR 1
#define SSLAT_VERSION_PATCH 0
#define SSLAT_VERSION_STRING "0.1.0"

/* The library's version at run time ("0.1.0"); compare with the macros. */
const char *sslat_version(void);

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
    SSLAT_ERR_NO_DEVICE = 8         /* the calculator needs a device that is not present */
} sslat_status;

/* A one-line description of a status ("invalid search space"). Never NULL. */
const char *sslat_status_string(sslat_status status);

/* Error details, filled by any function that takes one (it may be NULL).
 * message names what and where: file, JSON path, block, candidate. */
typedef struct sslat_error {
    sslat_status status;
    char message[512];
} sslat_error;

/* ---- Search spaces -------------------------------------------------------- */

/* A loaded search space: fixed layers (the constant part) and NAS blocks of
 * candidate subgraphs, all expanded into primitive operations. Immutable. */
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
sslat_status sslat_space_load_file(const char *path, const sslat_space_options *options,
                                   sslat_space **out, sslat_error *error);

/* Same, from memory. source_name is used in error messages ("<string>" if NULL). */
sslat_status sslat_space_load_string(const char *text, size_t length, const char *source_name,
                                     const sslat_space_options *options, sslat_space **out,
                                     sslat_error *error);

/* The built-in default space (a MobileNetV2-style space, compiled in). */
sslat_status sslat_space_load_default(const sslat_space_options *options, sslat_space **out,
                                      sslat_error *error);

/* The built-in default space's JSON text (static storage). */
const char *sslat_default_space_json(void);

void sslat_space_free(sslat_space *space);

const char *sslat_space_name(const sslat_space *space);
/* Canonical 64-bit hash of every subgraph with its input shape, in order. */
uint64_t sslat_space_hash(const sslat_space *space);
/* Input as N, C, H, W. */
void sslat_space_input_shape(const sslat_space *space, int32_t nchw[4]);
int32_t sslat_space_block_count(const sslat_space *space);
/* Number of candidates of block (0 ≤ block < block_count), or -1. */
int32_t sslat_space_candidate_count(const sslat_space *space, int32_t block);
/* The block's name ("blk03" or the file's "name"), or NULL when out of range. */
const char *sslat_space_block_name(const sslat_space *space, int32_t block);
/* The candidate's label as a token ("ir_k5_e6_c40_s2"), or NULL. */
const char *sslat_space_candidate_label(const sslat_space *space, int32_t block,
                                        int32_t candidate);
/* Number of architectures (product of candidate counts), as a double. */
double sslat_space_architecture_count(const sslat_space *space);
/* The same, exactly, in decimal; returns the length it needs (like snprintf). */
size_t sslat_space_architecture_count_string(const sslat_space *space, char *buffer,
                                             size_t capacity);
/* The file's "arch": copies up to capacity indices; returns its length
 * (block_count) or 0 when the file has none. */
int32_t sslat_space_arch(const sslat_space *space, int32_t *arch, int32_t capacity);

/* ---- Calculators ------------------------------------------------------------ */

/* Names of the calculators that can run in this build on this machine, best
 * last (static storage). Returns the count; names may be NULL. */
int32_t sslat_available_calculators(const char *const **names);

/* Analytic MAC counts (latency types mac, mac_thop, mac_fvcore, mac_pthflops),
 * in millions, for the whole input batch. ignore is a comma-separated list of
 * op kinds ("batchnorm,act") or activation names ("relu6"), or NULL.
 * constant receives the constant part; per_op receives, block after block,
 * one value per candidate (capacity = total candidates). */
sslat_status sslat_mac_count(const sslat_space *space, const char *latency_type,
                             const char *ignore, double *constant, double *per_op,
                             size_t per_op_capacity, sslat_error *error);

#ifdef __cplusplus
}
#endif

#endif /* SSLAT_H */
