/* libFuzzer target for what a loaded space is used for after the loader:
 * graph spaces (`from`, concat, detect, slices) expanded into whole
 * architectures, their parameter count and JSON graph, and their ONNX model
 * (packed in memory). Seeded with the example spaces, graph ones included. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_export.h"
#include "sslat.h"

enum { MOST_ARCHITECTURES = 4, MOST_PARAMETERS = 4 * 1000 * 1000 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sslat_space *space = NULL;
    sslat_error err;
    if (sslat_space_load_string((const char *)data, size, "fuzz", NULL, &space, &err) != SSLAT_OK) {
        if (space != NULL || !err.message[0]) abort();
        return 0;
    }
    int32_t blocks = sslat_space_block_count(space), most = 1;
    for (int32_t b = 0; b < blocks; b++)
        if (sslat_space_candidate_count(space, b) > most) most = sslat_space_candidate_count(space, b);
    int32_t *arch = calloc((size_t)(blocks > 0 ? blocks : 1), sizeof *arch);
    /* candidate k of every block (or its last), for the first few k */
    for (int32_t k = 0; arch && k < most && k < MOST_ARCHITECTURES; k++) {
        for (int32_t b = 0; b < blocks; b++) {
            int32_t count = sslat_space_candidate_count(space, b);
            arch[b] = k < count ? k : count - 1;
        }
        int64_t parameters = 0;
        if (sslat_space_param_count(space, arch, blocks, &parameters, &err) != SSLAT_OK) continue;
        if (parameters < 0) abort();
        char *json = NULL;
        if (sslat_space_architecture_json(space, arch, blocks, &json, &err) == SSLAT_OK) sslat_free(json);
        if (parameters > MOST_PARAMETERS) continue; /* filling the weights is all it would do */
        uint8_t *model = NULL;
        size_t model_size = 0;
        sslat_onnx_options options = {7};
        if (sslat_space_onnx_bytes(space, arch, blocks, &options, &model, &model_size, &err) == SSLAT_OK &&
            model_size == 0)
            abort();
        free(model);
    }
    free(arch);
    sslat_space_free(space);
    return 0;
}
