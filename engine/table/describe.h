/* A timed table's method and quality in one line each, from its metadata. */
#ifndef SSLAT_TABLE_DESCRIBE_H
#define SSLAT_TABLE_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>

#include "sslat.h"

/* "2 threads, cache hot, fused" and "disturbed (median entry spread 3.1%): <cause>"
 * ("" when the table does not record them, e.g. an analytic or imported one). */
void sslat_table_method_text(const sslat_container *table, char *out, size_t size);
void sslat_table_quality_text(const sslat_container *table, char *out, size_t size);

/* The short name of the runtime a table was fitted to by --context
 * ("torch-compile", "sslat" for its own calculator), NULL for a table not
 * fitted: the one rule every command follows. */
const char *sslat_table_calibrated_to(const sslat_container *table);

/* The runtime a timed table predicts, in words: "torch-compile: <how it
 * ran>, calibrated by --context on 100 architectures" for a table fitted to
 * a reference, "sslat cuda: each unit timed alone" otherwise ("" for an
 * analytic or imported table). *short_name gets "torch-compile" / "sslat" /
 * "" (may be NULL). */
void sslat_table_predicts_text(const sslat_container *table, char *out, size_t size, const char **short_name);

/* A calibrated table's fit: the reference runs' verdict, the held-out error,
 * whether the runs were enough (context.enough) and the candidates whose
 * order the fit changed (context.swaps), joined by separator ("; ", or a
 * newline and an indent); "" when not fitted. */
void sslat_table_fit_text(const sslat_container *table, const char *separator, char *out, size_t size);

/* Whether the table's figures are per sample (timed tables, Python's, an
 * ENOT file's mmac) rather than for the whole input batch (the MAC counters). */
bool sslat_table_per_sample(const sslat_container *table);

/* What one figure of the table means: "ms per sample (the time of a batch of 8
 * divided by 8)" or "MMAC for the whole batch of 8" (timed tables are per
 * sample, the MAC counters count the whole batch, Python's are per sample). */
void sslat_table_unit_meaning(const sslat_container *table, char *out, size_t size);

#endif
