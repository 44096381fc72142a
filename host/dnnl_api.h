/* oneDNN, loaded at run time with dlopen: a machine without libdnnl still runs
 * sslat, and the cpu calculator says clearly why it cannot. Call oneDNN as
 * DNNL(dnnl_memory_create)(…) after host_dnnl_load() succeeded. */
#ifndef SSLAT_HOST_DNNL_API_H
#define SSLAT_HOST_DNNL_API_H

#include <dnnl.h>
#include <dnnl_debug.h>

#include "sslat.h"

#define HOST_DNNL_FUNCTIONS(X)                  \
    X(dnnl_version)                             \
    X(dnnl_get_effective_cpu_isa)               \
    X(dnnl_status2str)                          \
    X(dnnl_prim_kind2str)                       \
    X(dnnl_engine_create)                       \
    X(dnnl_engine_destroy)                      \
    X(dnnl_stream_create)                       \
    X(dnnl_stream_destroy)                      \
    X(dnnl_stream_wait)                         \
    X(dnnl_memory_desc_init_by_tag)             \
    X(dnnl_memory_desc_init_submemory)          \
    X(dnnl_memory_desc_init_by_strides)         \
    X(dnnl_memory_desc_equal)                   \
    X(dnnl_memory_desc_get_size)                \
    X(dnnl_memory_create)                       \
    X(dnnl_memory_destroy)                      \
    X(dnnl_memory_get_data_handle)              \
    X(dnnl_memory_get_memory_desc)              \
    X(dnnl_primitive_desc_create)               \
    X(dnnl_primitive_desc_destroy)              \
    X(dnnl_primitive_desc_query)                \
    X(dnnl_primitive_desc_query_md)             \
    X(dnnl_primitive_create)                    \
    X(dnnl_primitive_destroy)                   \
    X(dnnl_primitive_execute)                   \
    X(dnnl_reorder_primitive_desc_create)       \
    X(dnnl_concat_primitive_desc_create)        \
    X(dnnl_primitive_attr_create)               \
    X(dnnl_primitive_attr_destroy)              \
    X(dnnl_primitive_attr_set_post_ops)         \
    X(dnnl_post_ops_create)                     \
    X(dnnl_post_ops_destroy)                    \
    X(dnnl_post_ops_append_eltwise)             \
    X(dnnl_post_ops_append_binary)              \
    X(dnnl_post_ops_append_sum)                 \
    X(dnnl_dilated_convolution_forward_desc_init) \
    X(dnnl_batch_normalization_forward_desc_init) \
    X(dnnl_eltwise_forward_desc_init)           \
    X(dnnl_pooling_v2_forward_desc_init)        \
    X(dnnl_inner_product_forward_desc_init)     \
    X(dnnl_binary_desc_init)                    \
    X(dnnl_shuffle_forward_desc_init)           \
    X(dnnl_resampling_forward_desc_init)       \
    X(dnnl_layer_normalization_forward_desc_init) \
    X(dnnl_matmul_desc_init)                    \
    X(dnnl_softmax_forward_desc_init)

typedef struct host_dnnl_table {
#define HOST_DNNL_POINTER(name) __typeof__(&name) name;
    HOST_DNNL_FUNCTIONS(HOST_DNNL_POINTER)
#undef HOST_DNNL_POINTER
    /* OpenMP of the oneDNN build (NULL when it threads otherwise) */
    void (*omp_set_num_threads)(int);
    int (*omp_get_max_threads)(void);
} host_dnnl_table;

extern host_dnnl_table sslat_dnnl_api;
#define DNNL(name) (sslat_dnnl_api.name)

/* Load libdnnl.so.2 once. NULL on success, else why it is not available
 * (static text). SSLAT_DNNL_LIBRARY overrides the library path (tests use it
 * to check the missing-library error). */
const char *host_dnnl_load(void);

/* Worker threads of the calling thread's primitives (0 = OpenMP's default:
 * every core, or OMP_NUM_THREADS); returns the count in effect, or 0 when the
 * build does not say. */
int host_dnnl_set_threads(int threads);

/* The status of a oneDNN call: SSLAT_OK, or its failure (the call, file:line
 * and oneDNN's status name) in err. The status is the same whether or not
 * err is NULL. No control flow: the caller writes what happens next. */
#define HOST_DNNL(err, call) host_dnnl_status((call), (err), #call, __FILE__, __LINE__)

/* Returns the failure of a oneDNN call from the calling function, for the
 * functions that hold nothing to free when it fails. The others thread the
 * status (`if (status == SSLAT_OK) status = HOST_DNNL(err, …);`) and free
 * what they hold at their end. */
#define DNNL_RETURN_IF_FAILED(err, call)                                                      \
    do {                                                                                      \
        sslat_status host_status_ = HOST_DNNL(err, call);                                     \
        if (host_status_ != SSLAT_OK) return host_status_;                                    \
    } while (0)

sslat_status host_dnnl_status(dnnl_status_t status, sslat_error *err, const char *call, const char *file, int line);

#endif
