/* A host program: IR subgraphs lowered to oneDNN primitives, run in order on
 * one stream. Used to time candidates (one subgraph) and whole architectures
 * (a chain of subgraphs, for end-to-end validation). */
#ifndef SSLAT_HOST_PROGRAM_H
#define SSLAT_HOST_PROGRAM_H

#include <stdbool.h>

#include "calc/calculator.h"
#include "host/dnnl_api.h"
#include "ir/graph.h"
#include "measure/parameters.h"

/* An engine and a stream, shared by the programs of a run. */
typedef struct host_session {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    int threads;
    long reference_runs; /* executions of a oneDNN reference kernel in a timed body (host/choose.h): 0 unless a
                            unit is flagged (weight reorders of the untimed prologue are not counted) */
} host_session;

sslat_status host_session_open(host_session *session, int threads, sslat_error *err);
void host_session_close(host_session *session);

typedef struct host_tensor {
    dnnl_memory_desc_t md; /* physical layout */
    dnnl_memory_t memory;  /* owned by the program's memory list */
    sslat_shape shape;     /* logical shape in the IR */
    int buffer;            /* activation buffer it lives in, or -1 */
    bool given;            /* an input of the program (its first or an input node): converted once */
} host_tensor;

/* Activation buffers are reused across appended subgraphs, as a deployment
 * engine plans its memory: a subgraph's intermediates are free once the next
 * one starts, so a whole network touches about what it would in production. */
typedef struct host_buffer {
    void *data;
    size_t size;
    bool busy;   /* holds a live tensor */
    bool pinned; /* never reused: program inputs and what the prologue writes */
} host_buffer;

/* The most arguments of one primitive: a concat's sources and its output. */
#define HOST_MAX_STEP_ARGS (SSLAT_MAX_NODE_INPUTS + 1)

typedef struct host_step {
    dnnl_primitive_t primitive;
    int nargs;
    dnnl_exec_arg_t args[HOST_MAX_STEP_ARGS];
    char kind[24]; /* oneDNN's primitive kind: "convolution", "reorder", … */
    char impl[40]; /* the implementation oneDNN chose: "jit_1x1:avx2", "ref:any", … */
    bool reference; /* impl is one of oneDNN's reference kernels */
} host_step;

typedef struct host_step_list {
    host_step *items;
    int count, capacity;
} host_step_list;

/* How a subgraph becomes primitives. The default of each mode comes first;
 * the others exist because oneDNN has no fast kernel for some fused forms on
 * some CPUs (docs/calculators.md, "Reference kernels"). */
typedef enum host_residual {
    HOST_RESIDUAL_BINARY_POST_OP, /* conv … + binary_add post-op reading the residual */
    HOST_RESIDUAL_SUM_POST_OP,    /* the residual copied into dst, then conv … + sum post-op */
    HOST_RESIDUAL_SEPARATE,       /* conv (+ BN + act) as one primitive, the add as its own */
} host_residual;

typedef enum host_shuffle {
    HOST_SHUFFLE_PRIMITIVE, /* oneDNN's shuffle primitive */
    HOST_SHUFFLE_REORDER,   /* a reorder over a 5-D view, as view / transpose / view */
} host_shuffle;

typedef struct host_lowering {
    sslat_exec_mode mode; /* fused: conv + BN + act (+ residual) runs as one primitive */
    host_residual residual;
    host_shuffle shuffle;
} host_lowering;

/* The default lowering of a mode. */
host_lowering host_lowering_default(sslat_exec_mode mode);

typedef struct host_program {
    host_session *session;
    host_lowering lowering;  /* of the next append (host_program_append) */
    uint64_t seed;
    int32_t nodes_seen;      /* global node index base: fill streams differ per node */
    host_tensor *tensors;
    int n_tensors, tensor_capacity;
    dnnl_memory_t *memories; /* everything to destroy */
    int n_memories, memory_capacity;
    host_buffer *buffers;
    int n_buffers, buffer_capacity;
    host_step_list prologue; /* once, before timing: weight and input reorders */
    host_step_list body;     /* the timed part */
    int input, output;       /* tensor indices */
    bool prologue_done;
} host_program;

/* A program whose input (shape, seeded random values in [-1, 1]) is ready. */
sslat_status host_program_init(host_program *program, host_session *session,
                               sslat_shape input, sslat_exec_mode mode, uint64_t seed,
                               sslat_error *err);
void host_program_release(host_program *program);

/* Start a fresh input (seeded with stream `replica`, shape as at init) that the
 * next append reads: used to chain independent copies of one subgraph. */
sslat_status host_program_new_input(host_program *program, sslat_shape shape, int replica,
                                    sslat_error *err);

/* Run the prologue (first call only) and the body once, and wait. */
sslat_status host_program_run(host_program *program, sslat_error *err);

/* Copy the output, in plain NCHW order, into out (N·C·H·W floats). */
sslat_status host_program_read_output(host_program *program, float *out, sslat_error *err);

/* Building blocks for the lowering (host/lower.c). */
sslat_status host_program_own(host_program *p, dnnl_memory_t memory, sslat_error *err);
sslat_status host_program_memory(host_program *p, const dnnl_memory_desc_t *md,
                                 dnnl_memory_t *out, sslat_error *err);
/* A new tensor; memory NULL allocates one of md. */
sslat_status host_program_tensor(host_program *p, const dnnl_memory_desc_t *md,
                                 dnnl_memory_t memory, sslat_shape shape, int *index,
                                 sslat_error *err);
/* The tensor's buffer may be reused (unless pinned or the program's output):
 * host/lower.c and host/wiring.c release a tensor after its last reader. */
void host_program_release_tensor(host_program *program, int tensor);
/* Append a primitive to the body (timed) or the prologue. */
sslat_status host_program_step(host_program *p, bool timed, const_dnnl_primitive_desc_t pd,
                               const dnnl_exec_arg_t *args, int nargs, sslat_error *err);
sslat_status host_program_reorder(host_program *p, dnnl_memory_t from,
                                  const dnnl_memory_desc_t *from_md, dnnl_memory_t to,
                                  const dnnl_memory_desc_t *to_md, bool timed, sslat_error *err);
/* The tensor in layout `wanted` (itself, or a converted copy). */
sslat_status host_program_layout(host_program *p, int tensor, const dnnl_memory_desc_t *wanted,
                                 int *result, sslat_error *err);
/* A plain descriptor of shape with ndims and tag; a token shape is always its
 * plain N×L×C (3-D, abc) whatever ndims and tag say. */
sslat_status host_dims_md(dnnl_memory_desc_t *md, sslat_shape shape, int ndims,
                          dnnl_format_tag_t tag, sslat_error *err);

#endif
