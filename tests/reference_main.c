/* sslat_reference: the plain-C reference output of one architecture, for
 * checks written in Python (the ONNX export against ONNX Runtime).
 *   sslat_reference SPACE ARCH SEED BATCH RESOLUTION INPUT.f32 OUTPUT.f32
 * ARCH is "0,3,1" ("" for a fixed network), RESOLUTION 0 keeps the file's;
 * the files get the seeded input
 * and the output, float32 little-endian, NCHW. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/space.h"
#include "measure/parameters.h"
#include "reference_ops.h"

static int write_floats(const char *path, const float *data, size_t count)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, sizeof *data, count, f) == count;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "sslat_reference: cannot write %s\n", path);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: sslat_reference SPACE ARCH SEED BATCH RESOLUTION INPUT.f32 OUTPUT.f32\n");
        return 2;
    }
    sslat_space_options options = {atoi(argv[4]), atoi(argv[5]), atoi(argv[5])};
    sslat_space *space = NULL;
    sslat_error err;
    if (sslat_space_load_file(argv[1], &options, &space, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat_reference: %s\n", err.message);
        return 2;
    }
    int32_t *arch = calloc((size_t)space->n_blocks + 1, sizeof *arch), n = 0;
    for (const char *p = argv[2]; *p && n < space->n_blocks;) {
        char *end = NULL;
        arch[n++] = (int32_t)strtol(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    sslat_graph whole; /* the network as the IR wires it (`from` included) */
    if (sslat_space_architecture_graph(space, arch, space->n_blocks, &whole, &err) != SSLAT_OK) {
        fprintf(stderr, "sslat_reference: %s\n", err.message);
        sslat_graph_release(&whole);
        free(arch);
        sslat_space_free(space);
        return 2;
    }
    const sslat_graph *graphs[1] = {&whole};
    uint64_t seed = strtoull(argv[3], NULL, 0);
    size_t in_count = (size_t)sslat_shape_elements(space->input);
    float *input = malloc(in_count * sizeof *input);
    sslat_fill_parameter(input, in_count, seed, -1, 0, 0);
    float *output = reference_run(graphs, 1, seed);
    sslat_shape out = sslat_graph_output(&whole);
    int ok = output && write_floats(argv[6], input, in_count) &&
             write_floats(argv[7], output, (size_t)sslat_shape_elements(out));
    free(input);
    free(output);
    sslat_graph_release(&whole);
    free(arch);
    sslat_space_free(space);
    return ok ? 0 : 1;
}
