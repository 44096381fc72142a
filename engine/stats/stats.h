/* Statistics over a container: the public functions are in sslat.h; these are
 * the defaults they use when a caller passes 0, which the CLI's help prints. */
#ifndef SSLAT_STATS_H
#define SSLAT_STATS_H

#define SSLAT_DISTRIBUTION_DEFAULT_BINS 65536 /* quantiles, CDF, counts under a budget */
#define SSLAT_BUDGET_DEFAULT_BINS 32768       /* the budget search's grid */

#endif
