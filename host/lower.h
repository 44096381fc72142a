/* Lowering IR graphs to oneDNN primitives, into a host program. */
#ifndef SSLAT_HOST_LOWER_H
#define SSLAT_HOST_LOWER_H

#include "host/program.h"

sslat_status host_lower_graph(host_program *program, const sslat_graph *graph, sslat_error *err);

/* Lower a subgraph reading the program's current output; its output becomes
 * the program's output. */
sslat_status host_program_append(host_program *program, const sslat_graph *graph,
                                 sslat_error *err);

#endif
