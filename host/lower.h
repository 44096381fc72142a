/* Lowering IR graphs to oneDNN primitives, into a host program. */
#ifndef SSLAT_HOST_LOWER_H
#define SSLAT_HOST_LOWER_H

#include "host/program.h"

/* Lower a subgraph whose graph input is program tensor sources[0] and whose
 * k-th input node is sources[k]; n_sources 0 means the program's output and
 * fresh seeded tensors for the input nodes (a layer timed alone). */
sslat_status host_lower_graph(host_program *program, const sslat_graph *graph, const int *sources, int n_sources,
                              sslat_error *err);

/* Lower a subgraph reading the program's current output; its output becomes
 * the program's output. */
sslat_status host_program_append(host_program *program, const sslat_graph *graph,
                                 sslat_error *err);

/* Lower a subgraph wired to earlier tensors (sources as host_lower_graph's);
 * its output becomes the program's output. Its sources stay live: the caller
 * releases each one after its last reader (host_program_release_tensor). */
sslat_status host_program_append_wired(host_program *program, const sslat_graph *graph, const int *sources,
                                       int n_sources, sslat_error *err);

#endif
