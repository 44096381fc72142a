/* A host program: IR subgraphs lowered to oneDNN primitives, run in order on
 * one stream. Used to time candidates (one subgraph) and whole architectures
 * (a chain of subgraphs, for end-to-end validation). */
#ifndef SSLAT_HOST_PROGRAM_H
#define SSLAT_HOST_PROGRAM_H

#include <stdbool.h>

#include "calculator.h"
#include "dnnl_api.h"
#include "graph.h"
#include "parameters.h"

/* An engine and a stream, shared by the programs of a run. */
typedef struct host_session {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    int threads;
} host_session;

sslat_status host_session_open(host_session *session, int threads, sslat_error *err);
void host_session_close(host_session *session);

typedef struct host_tensor {
    dnnl_memory_desc_t md; /* physical layout */
    dnnl_memory_t memory;  /* owned by the program's memory list */
    sslat_shape shape;     /* logical shape in the IR */
    int buffer;            /* activation buffer it lives in, or -1 */
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

typedef struct host_step {
    dnnl_primitive_t primitive;
    int nargs;
    dnnl_exec_arg_t args[8];
} host_step;

typedef struct host_step_list {
    host_step *items;
    int count, capacity;
} host_step_list;

typedef struct host_program {
    const host_session *session;
    sslat_exec_mode mode;
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
sslat_status host_program_init(host_program *program, const host_session *session,
                               sslat_shape input, sslat_exec_mode mode, uint64_t seed,
                               sslat_error *err);
void host_program_release(host_program *program);

/* Start a fresh input (seeded with stream `replica`, shape as at init) that the
 * next append reads: used to chain independent copies of one subgraph. */
sslat_status host_program_new_input(host_program *program, sslat_shape shape, int replica,
                                    sslat_error *err);

/* Lower a subgraph reading the program's current output; its output becomes
 * the program's output. */
sslat_status host_program_append(host_program *program, const sslat_graph *graph,
                                 sslat_error *err);

/* Run the prologue (first call only) and the body once, and wait. */
sslat_status host_program_run(host_program *program, sslat_error *err);

/* Copy the output, in plain NCHW order, into out (N·C·H·W floats). */
sslat_status host_program_read_output(host_program *program, float *out, sslat_error *err);

#endif
