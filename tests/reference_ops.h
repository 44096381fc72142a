/* A plain-C reference implementation of every primitive (tests only), run over
 * a chain of subgraphs with the same seeded inputs and parameters the host
 * backend uses, so the two can be compared number for number. */
#ifndef SSLAT_TESTS_REFERENCE_OPS_H
#define SSLAT_TESTS_REFERENCE_OPS_H

#include <stdint.h>

#include "ir/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run graphs[0..count) in order on the seeded input (host_fill_parameter node
 * -1) and return the final output in NCHW (malloc'ed, caller frees), or NULL
 * on allocation failure. */
float *reference_run(const sslat_graph *const *graphs, int count, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
