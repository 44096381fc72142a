#include "host/dnnl_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

host_dnnl_table sslat_dnnl_api;

static const char *load_reason = "not loaded";
static int loaded = 0;

const char *host_dnnl_load(void)
{
    if (loaded) return load_reason;
    loaded = 1;
    const char *path = getenv("SSLAT_DNNL_LIBRARY");
    void *library = dlopen(path && *path ? path : "libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_reason = "libdnnl.so.2 (oneDNN 2.x) cannot be loaded: install libdnnl2 (Debian 12), or pip install "
                      "onednn-cpu-gomp==2022.2.1 and set SSLAT_DNNL_LIBRARY=<venv>/lib/libdnnl.so.2 (or put its "
                      "folder on LD_LIBRARY_PATH)";
        return load_reason;
    }
#define HOST_DNNL_RESOLVE(name)                                                \
    *(void **)(&sslat_dnnl_api.name) = dlsym(library, #name);                       \
    if (!sslat_dnnl_api.name) {                                                     \
        load_reason = "libdnnl.so.2 lacks " #name ": oneDNN 2.6 or newer 2.x is needed"; \
        return load_reason;                                                    \
    }
    HOST_DNNL_FUNCTIONS(HOST_DNNL_RESOLVE)
#undef HOST_DNNL_RESOLVE
    *(void **)(&sslat_dnnl_api.omp_set_num_threads) = dlsym(library, "omp_set_num_threads");
    *(void **)(&sslat_dnnl_api.omp_get_max_threads) = dlsym(library, "omp_get_max_threads");
    load_reason = NULL;
    return NULL;
}

int host_dnnl_set_threads(int threads)
{
    if (!sslat_dnnl_api.omp_set_num_threads || !sslat_dnnl_api.omp_get_max_threads) return 0;
    /* 0 keeps OpenMP's own default: every core, or OMP_NUM_THREADS when set */
    if (threads > 0) sslat_dnnl_api.omp_set_num_threads(threads);
    return sslat_dnnl_api.omp_get_max_threads();
}

sslat_status host_dnnl_status(dnnl_status_t status, sslat_error *err, const char *call, const char *file, int line)
{
    if (status == dnnl_success) return SSLAT_OK;
    /* "DNNL(dnnl_memory_create)(…)" reads better as "dnnl_memory_create" */
    char name[64] = "";
    const char *start = strstr(call, "dnnl_");
    if (start) {
        size_t n = strcspn(start, ")(");
        snprintf(name, sizeof name, "%.*s", (int)n, start);
    }
    sslat_status mapped = status == dnnl_out_of_memory ? SSLAT_ERR_NOMEM
                          : status == dnnl_unimplemented ? SSLAT_ERR_UNSUPPORTED
                                                         : SSLAT_ERR_INVALID_ARGUMENT;
    return sslat_fail(err, mapped, "oneDNN %s failed at %s:%d: %s", name[0] ? name : call, file,
                      line, sslat_dnnl_api.dnnl_status2str ? sslat_dnnl_api.dnnl_status2str(status) : "?");
}
