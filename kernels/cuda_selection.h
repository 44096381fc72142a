/* The persistent selection cache of the cuda backend: each convolution's
 * decision (its route, and the legacy algorithm or the graph engine with its
 * knobs) kept in a file between runs, so a second table of the same space on
 * the same machine skips cuDNN's Find and the autotune. Host code only (no
 * CUDA type), so its file handling is unit-tested anywhere.
 *
 * An entry is trusted only on the device it was made on: the GPU (name, SM
 * count, compute capability) and the software (driver, cuDNN and sslat
 * versions) are its key beside the convolution's own (cuda_conv_key). Entries
 * of other GPUs stay in the file (a home folder shared by a cluster's nodes)
 * and are not used; entries of this GPU made with other software are stale:
 * counted, said, not used, and dropped when the file is next written. A line
 * that does not read back (a checksum per line) is skipped and counted; a file
 * of another format is neither read nor replaced. Writing merges under an
 * exclusive lock with what other processes wrote since, then replaces the file
 * atomically: two runs at once lose neither's entries. */
#ifndef SSLAT_CUDA_SELECTION_H
#define SSLAT_CUDA_SELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/cuda_select.h"

/* The file in the cache folder (the format's version is in its name and its first line). */
#define CUDA_SELECTION_FILE "cuda-selection.v1.txt"
#define CUDA_SELECTION_HEADER "sslat-selection-cache 1"

/* What one decision is, as the file keeps it. */
typedef struct cuda_selection_entry {
    uint64_t hardware, software; /* the device it was made on (cuda_selection_device) */
    cuda_conv_key key;
    cuda_conv_route route;
    int32_t algo, math;          /* the legacy API's (route legacy) */
    bool fallback, fma_forced;
    uint64_t workspace;
    cuda_engine engine;          /* the graph API's (routes graph, graph_fused) */
    double ms;                   /* the kept candidate's time when it was chosen (for the record) */
} cuda_selection_entry;

typedef struct cuda_selection_cache {
    bool on;
    char path[4096];             /* the file */
    uint64_t hardware, software; /* this device */
    cuda_selection_entry *items; /* what the file held for this device */
    int32_t count, capacity;
    cuda_selection_entry *fresh; /* decided in this run, to write */
    int32_t n_fresh, fresh_capacity;
    int32_t other_devices;       /* entries of other GPUs (kept in the file) */
    int32_t stale;               /* entries of this GPU made with other software, or that no longer work */
    int32_t unreadable;          /* lines that did not read back */
    int32_t hits, misses, written;
    bool save_failed;            /* a save was tried and failed (said once) */
    char problem[512];           /* why the file could not be read or written ("" when it could) */
} cuda_selection_cache;

/* The two halves of a device's key, as hashes of their text. */
uint64_t cuda_selection_hardware(const char *gpu_name, int sm_count, int cc_major, int cc_minor);
uint64_t cuda_selection_software(int driver_version, int cudnn_version, const char *sslat_version);

/* The cache folder: option when given ("off": none, NULL returned), else
 * $SSLAT_SELECTION_CACHE (a folder, or "off"), else $XDG_CACHE_HOME/sslat,
 * else $HOME/.cache/sslat; NULL with *why when there is none. */
const char *cuda_selection_folder(const char *option, char *out, size_t size, const char **why);

/* Open the cache of folder (NULL: off) for this device, reading what the file
 * holds. Never fails the run: a file that cannot be read leaves the cache
 * empty and says why in problem. */
void cuda_selection_open(cuda_selection_cache *cache, const char *folder, uint64_t hardware, uint64_t software);

/* This device's entry for key, or NULL (counts a hit or a miss). */
const cuda_selection_entry *cuda_selection_get(cuda_selection_cache *cache, const cuda_conv_key *key);

/* The entry cuda_selection_get returned no longer works (its engine is
 * gone): counted stale instead of a hit. */
void cuda_selection_mark_stale(cuda_selection_cache *cache);

/* A decision of this run, to write (replacing this device's entry for its key). */
void cuda_selection_put(cuda_selection_cache *cache, const cuda_selection_entry *entry);

/* Write this run's decisions: the folder made if missing, the file locked,
 * read again, merged (this run's entries win for their keys), written to a
 * temporary beside it and renamed over it. False, with problem set, when it
 * could not be (a read-only folder, a file of another format): the run goes on. */
bool cuda_selection_save(cuda_selection_cache *cache);

void cuda_selection_release(cuda_selection_cache *cache);

/* "folder/file: 12 hits, 3 misses, 0 stale, 3 written" or why not, for the metadata. */
void cuda_selection_describe(const cuda_selection_cache *cache, char *out, size_t size);

#endif
