/* Host programs: tensors, primitive steps, running and reading back. The
 * lowering of each IR op is in host/lower.c, which calls the helpers here. */
#include "host/program.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "measure/fill.h"

host_lowering host_lowering_default(sslat_exec_mode mode)
{
    return (host_lowering){mode, HOST_RESIDUAL_BINARY_POST_OP, HOST_SHUFFLE_PRIMITIVE};
}

sslat_status host_session_open(host_session *session, int threads, sslat_error *err)
{
    memset(session, 0, sizeof *session);
    session->threads = threads;
    sslat_status status = HOST_DNNL(err, DNNL(dnnl_engine_create)(&session->engine, dnnl_cpu, 0));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_stream_create)(&session->stream, session->engine, dnnl_stream_default_flags));
    if (status != SSLAT_OK) host_session_close(session);
    return status;
}

void host_session_close(host_session *session)
{
    if (session->stream) DNNL(dnnl_stream_destroy)(session->stream);
    if (session->engine) DNNL(dnnl_engine_destroy)(session->engine);
    session->stream = NULL;
    session->engine = NULL;
}

/* ---- bookkeeping --------------------------------------------------------------- */

static bool grow(void **items, int *capacity, int count, size_t item_size)
{
    if (count < *capacity) return true;
    int next = *capacity ? *capacity * 2 : 16;
    void *grown = realloc(*items, (size_t)next * item_size);
    if (!grown) return false;
    *items = grown;
    *capacity = next;
    return true;
}

sslat_status host_program_own(host_program *p, dnnl_memory_t memory, sslat_error *err)
{
    if (!grow((void **)&p->memories, &p->memory_capacity, p->n_memories, sizeof *p->memories)) {
        DNNL(dnnl_memory_destroy)(memory);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    p->memories[p->n_memories++] = memory;
    return SSLAT_OK;
}

sslat_status host_program_memory(host_program *p, const dnnl_memory_desc_t *md,
                                 dnnl_memory_t *out, sslat_error *err)
{
    *out = NULL;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_create)(out, md, p->session->engine, DNNL_MEMORY_ALLOCATE));
    return host_program_own(p, *out, err);
}

/* A free buffer of at least size bytes (the smallest that fits), or a new one. */
static int acquire_buffer(host_program *p, size_t size)
{
    int best = -1;
    for (int i = 0; i < p->n_buffers; i++)
        if (!p->buffers[i].busy && !p->buffers[i].pinned && p->buffers[i].size >= size &&
            (best < 0 || p->buffers[i].size < p->buffers[best].size))
            best = i;
    if (best < 0) {
        if (!grow((void **)&p->buffers, &p->buffer_capacity, p->n_buffers, sizeof *p->buffers)) return -1;
        size_t rounded = (size + 63) / 64 * 64;
        void *data = aligned_alloc(64, rounded ? rounded : 64);
        if (!data) return -1;
        memset(data, 0, rounded ? rounded : 64); /* touch the pages now, not inside the timing */
        p->buffers[p->n_buffers] = (host_buffer){data, rounded, false, false};
        best = p->n_buffers++;
    }
    p->buffers[best].busy = true;
    return best;
}

void host_program_release_tensor(host_program *p, int tensor)
{
    int buffer = p->tensors[tensor].buffer;
    if (buffer >= 0 && buffer != p->tensors[p->output].buffer) p->buffers[buffer].busy = false;
}

sslat_status host_program_tensor(host_program *p, const dnnl_memory_desc_t *md_in,
                                 dnnl_memory_t memory, sslat_shape shape, int *index,
                                 sslat_error *err)
{
    /* md_in may point into p->tensors, which grow() can move */
    const dnnl_memory_desc_t copy = *md_in, *md = &copy;
    if (!grow((void **)&p->tensors, &p->tensor_capacity, p->n_tensors, sizeof *p->tensors))
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    int buffer = -1;
    if (!memory) {
        buffer = acquire_buffer(p, DNNL(dnnl_memory_desc_get_size)(md));
        if (buffer < 0) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory for an activation");
        DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_create)(&memory, md, p->session->engine, p->buffers[buffer].data));
        sslat_status status = host_program_own(p, memory, err);
        if (status != SSLAT_OK) return status;
    } else {
        /* a view of another tensor's bytes lives in the buffer that holds them */
        void *data = NULL;
        DNNL(dnnl_memory_get_data_handle)(memory, &data);
        for (int b = 0; buffer < 0 && b < p->n_buffers; b++)
            if (p->buffers[b].data == data) buffer = b;
    }
    p->tensors[p->n_tensors] = (host_tensor){*md, memory, shape, buffer, false};
    *index = p->n_tensors++;
    return SSLAT_OK;
}

sslat_status host_program_step(host_program *p, bool timed, const_dnnl_primitive_desc_t pd,
                               const dnnl_exec_arg_t *args, int nargs, sslat_error *err)
{
    host_step_list *list = timed ? &p->body : &p->prologue;
    dnnl_primitive_t primitive = NULL;
    SSLAT_ASSERT(nargs <= HOST_MAX_STEP_ARGS);
    if (!grow((void **)&list->items, &list->capacity, list->count, sizeof *list->items))
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_primitive_create)(&primitive, pd));
    host_step *step = &list->items[list->count++];
    memset(step, 0, sizeof *step);
    step->primitive = primitive;
    step->nargs = nargs;
    memcpy(step->args, args, (size_t)nargs * sizeof *args);
    /* which kernel oneDNN picked: a reference one must never be timed silently */
    dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
    const char *impl = NULL;
    if (DNNL(dnnl_primitive_desc_query)(pd, dnnl_query_primitive_kind, 0, &kind) == dnnl_success)
        snprintf(step->kind, sizeof step->kind, "%s", DNNL(dnnl_prim_kind2str)(kind));
    if (DNNL(dnnl_primitive_desc_query)(pd, dnnl_query_impl_info_str, 0, (void *)&impl) == dnnl_success && impl)
        snprintf(step->impl, sizeof step->impl, "%s", impl);
    step->reference = strncmp(step->impl, "ref", 3) == 0; /* as host_impl_is_reference */
    return SSLAT_OK;
}

sslat_status host_program_reorder(host_program *p, dnnl_memory_t from, const dnnl_memory_desc_t *from_md,
                                  dnnl_memory_t to, const dnnl_memory_desc_t *to_md, bool timed,
                                  sslat_error *err)
{
    dnnl_primitive_desc_t pd = NULL;
    sslat_status status;
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_reorder_primitive_desc_create)(&pd, from_md, p->session->engine,
                                                                  to_md, p->session->engine, NULL));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    status = host_program_step(p, timed, pd, args, 2, err);
    DNNL(dnnl_primitive_desc_destroy)(pd);
    return status;
}

/* The tensor's bytes as a plain N,C,1,1 tensor: a view when it is a plain N,C
 * one, else a timed reorder into plain N,C first. */
static sslat_status rank4_view(host_program *p, int tensor, int *result, sslat_error *err)
{
    dnnl_memory_desc_t plain2, plain4;
    sslat_shape shape = p->tensors[tensor].shape;
    sslat_status status = host_dims_md(&plain2, shape, 2, dnnl_nc, err);
    if (status == SSLAT_OK) status = host_dims_md(&plain4, shape, 4, dnnl_nchw, err);
    if (status == SSLAT_OK && !DNNL(dnnl_memory_desc_equal)(&p->tensors[tensor].md, &plain2))
        status = host_program_layout(p, tensor, &plain2, &tensor, err);
    if (status != SSLAT_OK) return status;
    void *data = NULL;
    dnnl_memory_t view = NULL;
    DNNL(dnnl_memory_get_data_handle)(p->tensors[tensor].memory, &data);
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_create)(&view, &plain4, p->session->engine, data));
    status = host_program_own(p, view, err);
    if (status == SSLAT_OK) status = host_program_tensor(p, &plain4, view, shape, result, err);
    return status;
}

sslat_status host_program_layout(host_program *p, int tensor, const dnnl_memory_desc_t *wanted_in,
                                 int *result, sslat_error *err)
{
    const dnnl_memory_desc_t copy = *wanted_in, *wanted = &copy; /* may point into p->tensors */
    if (p->tensors[tensor].md.ndims == 2 && wanted->ndims == 4) {
        /* an fc output (N,C, plain) read as N,C,1,1 (a concat of two heads):
         * the same bytes, seen through a 4-D plain view; a reorder between
         * ranks is not something oneDNN does */
        sslat_status status = rank4_view(p, tensor, &tensor, err);
        if (status != SSLAT_OK) return status;
    }
    if (DNNL(dnnl_memory_desc_equal)(&p->tensors[tensor].md, wanted)) {
        *result = tensor;
        return SSLAT_OK;
    }
    int converted = -1;
    sslat_status status =
        host_program_tensor(p, wanted, NULL, p->tensors[tensor].shape, &converted, err);
    /* the program input is converted once, as a deployment converts its input
     * once; every other conversion is part of the work being timed */
    bool once = tensor == p->input || p->tensors[tensor].given;
    if (status == SSLAT_OK)
        status = host_program_reorder(p, p->tensors[tensor].memory, &p->tensors[tensor].md,
                                      p->tensors[converted].memory, wanted, !once, err);
    if (status == SSLAT_OK && once && p->tensors[converted].buffer >= 0)
        p->buffers[p->tensors[converted].buffer].pinned = true;
    *result = converted;
    return status;
}

/* ---- lifecycle ------------------------------------------------------------------- */

static void release_steps(host_step_list *list)
{
    for (int i = 0; i < list->count; i++) DNNL(dnnl_primitive_destroy)(list->items[i].primitive);
    free(list->items);
    memset(list, 0, sizeof *list);
}

void host_program_release(host_program *p)
{
    release_steps(&p->prologue);
    release_steps(&p->body);
    for (int i = 0; i < p->n_memories; i++) DNNL(dnnl_memory_destroy)(p->memories[i]);
    free(p->memories);
    for (int i = 0; i < p->n_buffers; i++) free(p->buffers[i].data);
    free(p->buffers);
    free(p->tensors);
    memset(p, 0, sizeof *p);
}

sslat_status host_dims_md(dnnl_memory_desc_t *md, sslat_shape s, int ndims, dnnl_format_tag_t tag,
                          sslat_error *err)
{
    if (s.tokens) { /* tokens have one plain layout: N×L×C, token after token */
        dnnl_dims_t dims = {s.n, s.h, s.c};
        DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(md, 3, dims, dnnl_f32, dnnl_abc));
        return SSLAT_OK;
    }
    dnnl_dims_t dims = {s.n, s.c, s.h, s.w};
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_memory_desc_init_by_tag)(md, ndims, dims, dnnl_f32, tag));
    return SSLAT_OK;
}

sslat_status host_program_new_input(host_program *p, sslat_shape shape, int replica, sslat_error *err)
{
    dnnl_memory_desc_t md;
    sslat_status status = host_dims_md(&md, shape, 4, dnnl_nchw, err);
    if (status == SSLAT_OK) status = host_program_tensor(p, &md, NULL, shape, &p->input, err);
    if (status == SSLAT_OK) {
        p->buffers[p->tensors[p->input].buffer].pinned = true;
        p->tensors[p->input].given = true;
        void *data = NULL;
        DNNL(dnnl_memory_get_data_handle)(p->tensors[p->input].memory, &data);
        sslat_fill_parameter(data, (size_t)sslat_shape_elements(shape), p->seed, -1, replica, 0);
        p->output = p->input;
    }
    return status;
}

sslat_status host_program_init(host_program *p, host_session *session, sslat_shape input,
                               sslat_exec_mode mode, uint64_t seed, sslat_error *err)
{
    memset(p, 0, sizeof *p);
    p->session = session;
    p->lowering = host_lowering_default(mode);
    p->seed = seed;
    sslat_status status = host_program_new_input(p, input, 0, err);
    if (status != SSLAT_OK) host_program_release(p);
    return status;
}

static sslat_status run_list(host_program *p, const host_step_list *list, sslat_error *err)
{
    for (int i = 0; i < list->count; i++) {
        if (list == &p->body) p->session->reference_runs += list->items[i].reference; /* what choose.c looks at */
        DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_primitive_execute)(list->items[i].primitive, p->session->stream,
                                                          list->items[i].nargs, list->items[i].args));
    }
    DNNL_RETURN_IF_FAILED(err, DNNL(dnnl_stream_wait)(p->session->stream));
    return SSLAT_OK;
}

sslat_status host_program_run(host_program *p, sslat_error *err)
{
    if (!p->prologue_done) {
        sslat_status status = run_list(p, &p->prologue, err);
        if (status != SSLAT_OK) return status;
        p->prologue_done = true;
    }
    return run_list(p, &p->body, err);
}

sslat_status host_program_read_output(host_program *p, float *out, sslat_error *err)
{
    const host_tensor *t = &p->tensors[p->output];
    int ndims = t->md.ndims;
    dnnl_memory_desc_t plain;
    dnnl_memory_t user = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t primitive = NULL;
    sslat_status status = host_dims_md(&plain, t->shape, ndims, ndims == 2 ? dnnl_nc : dnnl_nchw, err);
    if (status != SSLAT_OK) return status;
    status = HOST_DNNL(err, DNNL(dnnl_memory_create)(&user, &plain, p->session->engine, out));
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_reorder_primitive_desc_create)(&pd, &t->md, p->session->engine, &plain,
                                                                         p->session->engine, NULL));
    if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_primitive_create)(&primitive, pd));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, t->memory}, {DNNL_ARG_TO, user}};
    if (status == SSLAT_OK)
        status = HOST_DNNL(err, DNNL(dnnl_primitive_execute)(primitive, p->session->stream, 2, args));
    if (status == SSLAT_OK) status = HOST_DNNL(err, DNNL(dnnl_stream_wait)(p->session->stream));
    /* what this function made, whether or not it went well */
    if (primitive) DNNL(dnnl_primitive_destroy)(primitive);
    if (pd) DNNL(dnnl_primitive_desc_destroy)(pd);
    if (user) DNNL(dnnl_memory_destroy)(user);
    return status;
}
