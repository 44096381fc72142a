/* A list of architectures (a Pareto front, a budget's k best) as text, JSON or
 * CSV: each with its latency, its value and its candidates' labels. */
#ifndef SSLAT_CLI_ARCH_LIST_H
#define SSLAT_CLI_ARCH_LIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sslat.h"

typedef struct cli_arch_point {
    const int32_t *arch; /* one index per block */
    double latency, value;
} cli_arch_point;

typedef enum { CLI_LIST_TEXT, CLI_LIST_JSON, CLI_LIST_CSV } cli_list_format;

/* --json or --csv, once: a second format is refused (false, said). */
bool cli_set_list_format(cli_list_format *format, cli_list_format wanted, const char *verb);

/* One architecture's candidate labels joined by separator; labels come from
 * files, so each control byte is written as \xNN (never raw to a terminal or a CSV). */
void cli_print_labels(FILE *out, const sslat_container *table, const int32_t *arch, const char *separator);
/* One CSV field: the architecture's indices ("0;3;1") or its labels joined by
 * ";"; empty for a NULL arch (nothing fits). */
void cli_csv_arch(FILE *out, const sslat_container *table, const int32_t *arch, bool labels);
/* {"arch": [...], "labels": [...], "latency": L} */
json_t *cli_arch_json(const sslat_container *table, const int32_t *arch, double latency);

/* Columns sized to their content; each architecture's labels on the line under it. */
void cli_arch_list_text(FILE *out, const sslat_container *latency, const sslat_container *value,
                        const cli_arch_point *points, int32_t n);
/* [{"arch": [...], "labels": [...], "latency": L, "value": V}, ...] */
json_t *cli_arch_list_json(const sslat_container *latency, const cli_arch_point *points, int32_t n);
/* Which sums of the list overflow a double ("latency", "value"), appended to
 * overflow (the JSON array a verb says them in; they are null in the list). */
void cli_arch_list_overflow(const cli_arch_point *list, int32_t n, json_t *overflow);
/* rank,latency_ms,<value type>_<unit>,arch,labels (arch "0;3;1", labels joined by ";") */
void cli_arch_list_csv(FILE *out, const sslat_container *latency, const sslat_container *value,
                       const cli_arch_point *points, int32_t n);

#endif
