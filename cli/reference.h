/* sslat validate --reference onnxruntime|torch: the architectures of a
 * validation timed end to end in a runtime that did not produce the table. */
#ifndef SSLAT_CLI_REFERENCE_H
#define SSLAT_CLI_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/validation.h"

typedef struct cli_reference_options {
    const char *runtime; /* "onnxruntime" or "torch" */
    const char *device;  /* "cpu" or "cuda" (the table's calculator) */
    const char *dtype;   /* the table's, for torch on cuda */
    int32_t threads;     /* 0: the runtime's default */
    int32_t warmup, runs;
    bool channels_last;  /* torch only: --channels-last, or an NHWC cuda table */
    bool fold_bn;        /* torch only: BN folded into the conv before it (a fused-mode table) */
    bool back_to_back;   /* each model warmed up and run in a row (a hot table), not interleaved (cold) */
    uint64_t seed;       /* the ONNX models' weights */
} cli_reference_options;

/* Whether name is a reference runtime this command knows. */
bool cli_reference_known(const char *name);

/* Whether the project's Python (below) imports the runtime: CLI_OK, or
 * CLI_UNAVAILABLE having said what to install; checked before a long run. */
int cli_reference_available(const char *runtime);

/* Fill every row's measured time (ms per sample) by running the rows'
 * architectures in the reference runtime through the project's Python
 * (SSLAT_PYTHON, else build/python-venv, else python3); *runtime gets the
 * runtime's own description. Returns an exit code; 3 when the runtime is not
 * installed (what to install is said), 1 when it failed (its message is passed
 * on). Works in a private temporary folder, removed at the end. */
int cli_reference_measure(const sslat_space *space, sslat_validation *validation, const cli_reference_options *options,
                          char *runtime, size_t runtime_size);

/* The same for bare architectures (context mode's runs): ms[k] of archs[k]. */
int cli_reference_measure_architectures(const sslat_space *space, const int32_t *const *archs, size_t n,
                                        const cli_reference_options *options, double *ms, char *runtime,
                                        size_t runtime_size);

#endif
