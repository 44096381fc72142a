/* The latency container in memory (format on disk: docs/format.md). */
#ifndef SSLAT_CONTAINER_H
#define SSLAT_CONTAINER_H

#include <stdbool.h>

#include "base/limits.h"
#include "sslat.h"

typedef struct sslat_meta_pair {
    char *key, *value;
} sslat_meta_pair;

/* What a shard of a sharded run holds: which entries it measured. */
typedef struct sslat_shard_part {
    int32_t index, count;   /* shard index / shard count */
    int32_t n_fixed;        /* fixed layers of the space, in order */
    sslat_entry *fixed;     /* their entries (those this shard measured) */
    unsigned char *fixed_present;
    unsigned char *present; /* per block entry: measured by this shard */
} sslat_shard_part;

struct sslat_container {
    sslat_entry constant;
    int32_t n_blocks;
    int32_t *n_candidates; /* per block */
    int32_t *offset;       /* n_blocks + 1: first entry of each block */
    sslat_entry *entries;  /* offset[n_blocks] entries, block after block */
    char *space_name;
    uint64_t space_hash;
    int32_t input[4]; /* N, C, H, W */
    int32_t n_meta;
    sslat_meta_pair *meta; /* latency_type and unit first */
    char **block_names;    /* n_blocks, or NULL without labels */
    char **labels;         /* offset[n_blocks], or NULL */
    sslat_shard_part *shard; /* NULL for a whole table */
};

/* A shard's part (not yet filled) attached to c; n_fixed fixed layers. */
sslat_status sslat_container_make_partial(sslat_container *c, int32_t index, int32_t count,
                                          int32_t n_fixed, sslat_error *err);
void sslat_shard_part_free(sslat_shard_part *part);

/* Fails (SSLAT_ERR_INVALID_ARGUMENT) on a shard's partial table: statistics
 * and exports need the merged one. */
sslat_status sslat_container_require_whole(const sslat_container *c, sslat_error *err);

/* Entries a run could not measure (--keep-going; table/failed_entries.c):
 * mark one (block -1: a fixed layer, so the constant part), ask whether one or
 * any is, and fail (SSLAT_ERR_INVALID_ARGUMENT, saying how to finish it) on a
 * shard's part or an incomplete table: statistics, merges and validations
 * need every entry measured. */
sslat_status sslat_container_mark_failed(sslat_container *c, int32_t block, int32_t candidate, const char *layer,
                                         const char *label, const char *message, sslat_error *err);
bool sslat_container_has_failed_entries(const sslat_container *c);
/* How many distinct subgraphs failed (quality.failed_units): set by the run,
 * read as text for messages ("some" when not recorded). */
sslat_status sslat_container_set_failed_units(sslat_container *c, size_t units, sslat_error *err);
const char *sslat_container_failed_units(const sslat_container *c);
bool sslat_container_entry_failed(const sslat_container *c, int32_t block, int32_t candidate);
/* The gate of everything that reads a table's values as latencies: refuses an
 * incomplete table, and one the CUDA stand-in of the tests made ("standin"). */
sslat_status sslat_container_require_complete(const sslat_container *c, sslat_error *err);

/* An empty table of the given shape: every entry zero, metadata holding the
 * type, its unit, tool_version and created. Checks the type and the counts. */
sslat_status sslat_container_new(const char *latency_type, const int32_t *candidate_counts,
                                 int32_t block_count, sslat_container **out, sslat_error *err);

/* Names to show a person: the table's own, or, where an imported table has
 * none, "block 3" / "candidate 2" / "unknown (…)". */
const char *sslat_container_block_title(const sslat_container *c, int32_t block, char *buffer, size_t size);
const char *sslat_container_candidate_title(const sslat_container *c, int32_t block, int32_t candidate,
                                            char *buffer, size_t size);
const char *sslat_container_space_title(const sslat_container *c);

/* Says what a table's figures are (an ENOT "mmac" file made by fvcore is
 * mac_fvcore): the type changes, the values do not; the unit must match. */
sslat_status sslat_container_relabel_type(sslat_container *c, const char *latency_type, sslat_error *err);

/* Layers run one after another: add e into total (variances add; the
 * smallest sample count stays). first: total = e. */
void sslat_entry_accumulate(sslat_entry *total, const sslat_entry *e, bool first);

/* trtexec's threshold: a timed entry whose coefficient of variation
 * (stddev / mean) exceeds it is flagged noisy. */
#define SSLAT_NOISY_COV 0.025

/* Whether a timed entry (samples > 1) is noisy by that rule. */
bool sslat_entry_noisy(const sslat_entry *entry);

/* "N of M timed candidate entries have stddev / mean > 2.5% …": the table's
 * quality.noisy_entries. */
void sslat_container_noise_summary(const sslat_container *container, char *text, size_t size);

/* An analytic entry: every figure = value, one sample. */
sslat_entry sslat_entry_of_value(double value);

/* Whether a table's input N,C,H,W can be: all zeros (no space, an ENOT
 * import) or no zero at all. The binary reader and the JSON import share it. */
bool sslat_input_shape_valid(const int32_t input[4]);

/* Finite and >= 0 everywhere; otherwise writes which figure to why. */
bool sslat_entry_valid(const sslat_entry *entry, char *why, size_t why_size);

/* Replace the labels (block names, candidate labels); NULL names keep "". */
sslat_status sslat_container_set_labels(sslat_container *container, char **block_names,
                                        char **labels, sslat_error *err);

/* A fixed layer's entry in a shard's part (fixed: its index among the space's
 * fixed layers), marked as measured by this part. Block entries go through
 * sslat_container_set_entry, which marks them too. */
sslat_status sslat_container_set_fixed_entry(sslat_container *container, int32_t fixed,
                                             const sslat_entry *entry, sslat_error *err);

/* Record the space a table was measured on: name, hash, input N, C, H, W. */
sslat_status sslat_container_set_space_info(sslat_container *container, const char *name,
                                            uint64_t hash, const int32_t nchw[4], sslat_error *err);

#endif
