/* The report (sslat_report_html, sslat report): one self-contained HTML page
 * (inline SVG, no script, no network) describing a latency table over its
 * search space. Internal: what the sections read. */
#ifndef SSLAT_REPORT_H
#define SSLAT_REPORT_H

#include <stdint.h>

#include "sslat.h"

/* One architecture measured end to end (`sslat validate --json`). */
typedef struct report_validation_row {
    char label[64]; /* cut at a whole UTF-8 character */
    double predicted, measured;
    double macs; /* the row's MAC count (NaN: not given) */
} report_validation_row;

typedef struct report_input {
    const char *table_name;
    const sslat_container *table;   /* the latency table (required) */
    const sslat_space *space;       /* its space, for the exact count and "arch" (may be NULL) */
    const sslat_container *mac;     /* a MAC table of the same space (may be NULL) */
    const sslat_container *value;   /* the Pareto front's second axis (may be NULL) */
    const int32_t *current_arch;    /* marked in the plots (NULL: none) */
    const report_validation_row *validation; /* n_validation rows (may be NULL) */
    int32_t n_validation;
    const char *validation_runtime; /* who measured them ("onnxruntime 1.23 (...)"; NULL: not said) */
    uint64_t validation_seed;       /* validate's bootstrap seed, so the intervals are validate's own */
    int32_t samples;                /* random architectures in the histogram */
    uint64_t seed;
} report_input;

/* The page as NUL-terminated text (caller frees with free()). */
sslat_status report_render(const report_input *input, char **html, sslat_error *err);

#endif
