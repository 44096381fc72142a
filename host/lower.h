/* Lowering IR graphs to oneDNN primitives, and the program helpers it uses. */
#ifndef SSLAT_HOST_LOWER_H
#define SSLAT_HOST_LOWER_H

#include "program.h"

sslat_status host_lower_graph(host_program *program, const sslat_graph *graph, sslat_error *err);

/* Helpers of program.c shared with lower.c. */
sslat_status host_program_own(host_program *p, dnnl_memory_t memory, sslat_error *err);
sslat_status host_program_memory(host_program *p, const dnnl_memory_desc_t *md,
                                 dnnl_memory_t *out, sslat_error *err);
/* A new tensor; memory NULL allocates one of md. */
sslat_status host_program_tensor(host_program *p, const dnnl_memory_desc_t *md,
                                 dnnl_memory_t memory, sslat_shape shape, int *index,
                                 sslat_error *err);
/* Append a primitive to the body (timed) or the prologue. */
sslat_status host_program_step(host_program *p, bool timed, const_dnnl_primitive_desc_t pd,
                               const dnnl_exec_arg_t *args, int nargs, sslat_error *err);
sslat_status host_program_reorder(host_program *p, dnnl_memory_t from,
                                  const dnnl_memory_desc_t *from_md, dnnl_memory_t to,
                                  const dnnl_memory_desc_t *to_md, bool timed, sslat_error *err);
/* The tensor in layout `wanted` (itself, or a converted copy). */
sslat_status host_program_layout(host_program *p, int tensor, const dnnl_memory_desc_t *wanted,
                                 int *result, sslat_error *err);
sslat_status host_dims_md(dnnl_memory_desc_t *md, sslat_shape shape, int ndims,
                          dnnl_format_tag_t tag, sslat_error *err);

#endif
