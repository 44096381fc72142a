#define _GNU_SOURCE /* dladdr: the file a loaded library really is */
#include "kernels/cuda_api.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cuda_api_table sslat_cuda_api;

/* Where the libraries are looked for after the loader's own path: the
 * folders of SSLAT_CUDA_LIBRARY_PATH (':'-separated), $CUDA_HOME/lib64 and
 * /usr/local/cuda/lib64. pip's CUDA 13 wheels put cuBLAS in nvidia/cu13/lib and
 * cuDNN in nvidia/cudnn/lib: bench/gpu_check.sh names them. */
static void *open_in_folders(const char *name)
{
    char folders[2048], path[2300];
    const char *home = getenv("CUDA_HOME"), *extra = getenv("SSLAT_CUDA_LIBRARY_PATH");
    snprintf(folders, sizeof folders, "%s:%s%s:/usr/local/cuda/lib64", extra ? extra : "", home ? home : "",
             home ? "/lib64" : "");
    char *save = NULL;
    for (char *folder = strtok_r(folders, ":", &save); folder; folder = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof path, "%s/%s", folder, name);
        void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (handle) return handle;
    }
    return NULL;
}

/* The file a loaded library really is (dladdr on one of its symbols): a
 * wheel's copy and a system one are told apart in the metadata. */
static void real_path(void *library, const char *symbol, char *out, size_t capacity)
{
    Dl_info info;
    void *address = dlsym(library, symbol);
    if (address && dladdr(address, &info) && info.dli_fname) snprintf(out, capacity, "%s", info.dli_fname);
}

static void *open_first(const char *const *names, const char *symbol, char *opened, size_t capacity, char *why,
                        size_t why_size)
{
    for (int pass = 0; pass < 2; pass++)
        for (const char *const *name = names; *name; name++) {
            void *handle = pass == 0 ? dlopen(*name, RTLD_NOW | RTLD_LOCAL) : open_in_folders(*name);
            if (handle) {
                snprintf(opened, capacity, "%s", *name);
                real_path(handle, symbol, opened, capacity);
                return handle;
            }
            if (pass == 0 && name == names) snprintf(why, why_size, "%s", dlerror());
        }
    return NULL;
}

static void load_nvml(void)
{
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml) return;
    cuda_nvml_table t;
    *(void **)&t.init = dlsym(nvml, "nvmlInit_v2");
    *(void **)&t.shutdown = dlsym(nvml, "nvmlShutdown");
    *(void **)&t.device_by_pci_bus_id = dlsym(nvml, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&t.temperature = dlsym(nvml, "nvmlDeviceGetTemperature");
    *(void **)&t.clock = dlsym(nvml, "nvmlDeviceGetClockInfo");
    /* optional: the newer name first, the deprecated one of older drivers after */
    *(void **)&t.throttle_reasons = dlsym(nvml, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!t.throttle_reasons) *(void **)&t.throttle_reasons = dlsym(nvml, "nvmlDeviceGetCurrentClocksThrottleReasons");
    /* required for clocks and temperature: without them NVML is not used at all */
    if (t.init && t.shutdown && t.device_by_pci_bus_id && t.temperature && t.clock && t.init() == 0)
        sslat_cuda_api.nvml = t;
}

/* One symbol into its table slot; false, with why, when the library lacks it. */
static bool load_symbol(void *library, const char *path, const char *name, const char *hint, void **slot,
                        char *why, size_t size)
{
    *slot = dlsym(library, name);
    if (!*slot) snprintf(why, size, "%s has no %s%s", path, name, hint);
    return *slot != NULL;
}

/* cuBLASLt, all or nothing: its absence is said in the metadata (cuda.linear). */
static void load_cublaslt(void)
{
    static const char *const NAMES[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", NULL};
    char *why = sslat_cuda_api.cublaslt_missing;
    size_t size = sizeof sslat_cuda_api.cublaslt_missing;
    char detail[256] = "";
    why[0] = '\0';
    void *library = open_first(NAMES, "cublasLtCreate", sslat_cuda_api.cublaslt_path,
                               sizeof sslat_cuda_api.cublaslt_path, detail, sizeof detail);
    if (!library) {
        snprintf(why, size, "libcublasLt.so cannot be loaded: %s", detail);
        return;
    }
#define CUDA_LT_LOAD(name)                                                                                  \
    if (!why[0] && !load_symbol(library, sslat_cuda_api.cublaslt_path, #name, "", (void **)&sslat_cuda_api.name, \
                                why, size))                                                               \
        sslat_cuda_api.name = NULL;
    CUDA_CUBLASLT_FUNCTIONS(CUDA_LT_LOAD)
#undef CUDA_LT_LOAD
}

const char *cuda_api_load(void)
{
    static int state; /* 0 = not tried, 1 = loaded, -1 = failed */
    static char why[640];
    if (state) return state > 0 ? NULL : why;
    static const char *const CUDNN_NAMES[] = {"libcudnn.so.9", "libcudnn.so", NULL};
    static const char *const CUBLAS_NAMES[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
    /* each library: the names tried in order, a symbol that proves it is the
     * one (not a stub), where its path is recorded, and what to say when none loads */
    const struct {
        const char *const *names;
        const char *probe;
        char *path;
        size_t path_size;
        const char *what, *where; /* said when none loads */
    } LIBRARIES[] = {
        {CUDNN_NAMES, "cudnnGetVersion", sslat_cuda_api.cudnn_path, sizeof sslat_cuda_api.cudnn_path,
         "libcudnn.so.9 (cuDNN 9)", "; pip install nvidia-cudnn-cu13 puts it in site-packages/nvidia/cudnn/lib; "
         "or module load cudnn"},
        {CUBLAS_NAMES, "cublasCreate_v2", sslat_cuda_api.cublas_path, sizeof sslat_cuda_api.cublas_path,
         "libcublas.so (cuBLAS 12 or 13)", "; pip's CUDA 13 wheels keep it in nvidia/cu13/lib; or module load cuda"},
    };
    enum { N_LIBRARIES = sizeof LIBRARIES / sizeof LIBRARIES[0] };
    void *handles[N_LIBRARIES] = {NULL};
    for (int i = 0; i < N_LIBRARIES; i++) {
        char detail[256] = "";
        handles[i] = open_first(LIBRARIES[i].names, LIBRARIES[i].probe, LIBRARIES[i].path, LIBRARIES[i].path_size,
                                detail, sizeof detail);
        if (!handles[i]) {
            snprintf(why, sizeof why, "%s cannot be loaded: %s (add its lib folder to LD_LIBRARY_PATH or "
                                      "SSLAT_CUDA_LIBRARY_PATH%s)", LIBRARIES[i].what, detail, LIBRARIES[i].where);
            state = -1;
            return why;
        }
    }
    void *cudnn = handles[0], *cublas = handles[1];
    /* every function of both tables, each from its library; the hint says what is needed */
    void *library = cudnn;
    const char *path = sslat_cuda_api.cudnn_path, *hint = " (cuDNN 9 with its legacy API is needed)";
#define CUDA_API_LOAD(name)                                                                 \
    if (!load_symbol(library, path, #name, hint, (void **)&sslat_cuda_api.name, why, sizeof why)) { \
        state = -1;                                                                         \
        return why;                                                                         \
    }
    CUDA_CUDNN_FUNCTIONS(CUDA_API_LOAD)
    library = cublas, path = sslat_cuda_api.cublas_path, hint = "";
    CUDA_CUBLAS_FUNCTIONS(CUDA_API_LOAD)
    CUDA_API_LOAD(cublasGemmEx)
    CUDA_API_LOAD(cublasGemmStridedBatchedEx)
#undef CUDA_API_LOAD
    *(void **)&sslat_cuda_api.cudnnGetLastErrorString = dlsym(cudnn, "cudnnGetLastErrorString");
    /* the graph API, all or nothing: its absence is said where it is asked for */
    sslat_cuda_api.graph_missing[0] = '\0';
#define CUDA_GRAPH_LOAD(name)                                                                                    \
    if (!sslat_cuda_api.graph_missing[0] &&                                                                     \
        !load_symbol(cudnn, sslat_cuda_api.cudnn_path, #name, "", (void **)&sslat_cuda_api.name,              \
                     sslat_cuda_api.graph_missing, sizeof sslat_cuda_api.graph_missing))                        \
        sslat_cuda_api.name = NULL;
    CUDA_CUDNN_GRAPH_FUNCTIONS(CUDA_GRAPH_LOAD)
#undef CUDA_GRAPH_LOAD
    load_cublaslt();
    load_nvml();
    state = 1;
    return NULL;
}
