/* Progress on stderr for long runs: on a terminal one line rewritten in place
 * ("[cpu] 96/106 distinct subgraphs  12 s elapsed, ETA 2 s"); elsewhere (a
 * Slurm log, a pipe) one plain line per finished step, so a log shows how far
 * a job got and how fast. */
#ifndef SSLAT_PROGRESS_H
#define SSLAT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sslat_progress {
    char what[48];  /* "[cpu]" */
    char unit[48];  /* "distinct subgraphs" */
    size_t total;
    double started; /* seconds, monotonic */
    bool enabled, terminal;
} sslat_progress;

/* enabled false: every call is silent. */
void sslat_progress_begin(sslat_progress *p, bool enabled, const char *what, const char *unit, size_t total);
/* done of total finished. */
void sslat_progress_step(sslat_progress *p, size_t done);
/* The line a step prints (without the leading \r or trailing newline): tests read it. */
void sslat_progress_format(const sslat_progress *p, size_t done, double elapsed, char *out, size_t size);

#endif
