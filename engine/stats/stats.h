/* Statistics over a container: the public functions are in sslat.h; these are
 * the defaults they use when a caller passes 0, which the CLI's help prints,
 * and the one check that two tables describe the same space. */
#ifndef SSLAT_STATS_H
#define SSLAT_STATS_H

#include <stdbool.h>

#include "sslat.h"

#define SSLAT_DISTRIBUTION_DEFAULT_BINS 65536 /* quantiles, CDF, counts under a budget */
#define SSLAT_BUDGET_DEFAULT_BINS 32768       /* the budget search's grid */

/* Both tables complete, with the same blocks and candidates (and space, when
 * both name one): what a budget search or a Pareto front needs of a pair. */
sslat_status sslat_check_table_pair(const sslat_container *latency, const sslat_container *value,
                                    sslat_error *error);

/* Points of a front (latency ascending, n of them) to show `wanted` of: for
 * each of `wanted` budgets spread evenly from the fastest to the slowest, the
 * last point within it (the best-valued), each once; all when wanted is 0 or
 * n ≤ wanted. Writes indices into chosen (room for min(n, wanted) or n),
 * returns how many. sslat_pareto_compute's `points` and the report's table. */
int64_t sslat_pareto_spread(const double *latency, int64_t n, int32_t wanted, int64_t *chosen);

/* Whether a thinned front's slack is wider than its own span (last point's
 * latency - first's): its shape then says little, only its two ends do. */
bool sslat_pareto_slack_exceeds_span(const sslat_pareto_front *front);

#endif
