/* sslat sweep's points and their summary (cli/sweep_summary.c). */
#ifndef SSLAT_CLI_SWEEP_H
#define SSLAT_CLI_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/limits.h"
#include "sslat.h"

/* One point's answers: its table's extremes, its fastest architecture and,
 * per --budget, the architecture with the largest value total within it. */
typedef struct point_result {
    char name[64];
    int32_t batch, resolution;
    const char *dtype;
    double min, mean, max, space_arch, wall;
    bool has_space_arch, reused;
    sslat_container *table, *value; /* held until the summary is written (value: NULL without --budget) */
    int32_t blocks;
    int32_t *argmin;                /* blocks indices */
    int32_t *budget_arch;           /* n_budgets × blocks */
    double *budget_latency, *budget_value;
    bool *budget_fits;              /* false: no architecture of the point fits the budget */
} point_result;

typedef struct sweep_answers {
    const double *budgets; /* the table's unit, per sample for a timed table */
    int n_budgets;
    const char *value_type; /* what each budget maximises, as its columns say ("mac", a value table's "top1") */
    const sslat_container *value_table; /* a value table used at every point (--value FILE), or NULL */
} sweep_answers;

void point_result_free(point_result *r);

/* DIR, made when missing and locked for this run (cli/sweep_folder.c): a
 * whole sweep alone; the shards of one sweep (same signature: calculator,
 * options, points, shard count) side by side; anything else refused. */
typedef struct sweep_folder {
    int common, own; /* flock'ed lock files (released when closed), or -1 */
    bool created;    /* made by this run: removed again if the run leaves it empty */
    const char *path;
    char common_lock[1024], own_lock[1024];
} sweep_folder;

/* DIR made when missing, the lock names set (suffix: "" for a whole sweep,
 * "-I-of-N" for a shard); an exit code. Nothing is written yet: the caller
 * checks its outputs (none may be the space file) before locking. */
int sweep_folder_make(const char *dir, const char *suffix, sweep_folder *folder);
/* The locks taken, the signature written or compared; an exit code (on a
 * refusal, sweep_folder_close removes a folder this run made). */
int sweep_folder_lock(sweep_folder *folder, const char *suffix, const char *signature);
/* Release the locks (the last run out removes them) and an empty DIR it made. */
void sweep_folder_close(sweep_folder *folder);

/* DIR/summary<suffix>.csv, .jsonl and .html (the cross-point page); an exit code. */
int sweep_write_summary(const char *dir, const char *suffix, const point_result *rows, int n,
                        const sweep_answers *answers);

/* After the per-point lines: the fastest architecture and each budget's best
 * per point, and whether it changes from point to point. */
void sweep_print_answers(const point_result *rows, int n, const sweep_answers *answers);

#endif
