/* sslat validate --reference R and measure --context N --reference R: whole
 * architectures timed end to end in a runtime that did not produce the table
 * (onnxruntime, torch, torch-default, torch-compile; cli/reference_runner.py). */
#ifndef SSLAT_CLI_REFERENCE_H
#define SSLAT_CLI_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/quality.h"
#include "stats/validation.h"

typedef struct cli_reference_options {
    const char *verb;    /* "validate" or "measure": who speaks in the messages */
    const char *runtime; /* a name cli_reference_known knows */
    const char *device;  /* "cpu" or "cuda" (the table's calculator) */
    const char *dtype;   /* the table's, for torch on cuda */
    int32_t threads;     /* 0: the runtime's default */
    int32_t warmup, runs;
    bool channels_last;  /* torch only: --channels-last, or an NHWC cuda table */
    bool fold_bn;        /* torch only: BN folded into the conv before it (a fused-mode table) */
    bool back_to_back;   /* each model warmed up and run in a row (a hot table), not interleaved (cold) */
    uint64_t seed;       /* the ONNX models' weights */
} cli_reference_options;

/* What the runner answered besides the times: the runtime in words (version,
 * settings, regime), for torch-compile the compile times (never timed), and
 * what the machine let its runs do, judged as a cpu table's samples are
 * (measure/quality.h; cli/reference_runner.py's Watch). */
typedef struct cli_reference_answer {
    char runtime[768];
    int32_t compiled;                    /* networks compiled (0: the runtime compiles nothing) */
    double compile_total_s, compile_median_s, compile_max_s;
    bool watched;                        /* the runner's watch was read (false: sslat's own calculator ran) */
    sslat_quality_input watch;
    long disturbed_batches;
    sslat_quality_verdict verdict;
    char cause[1024];                    /* "" when ok */
    char figures[512];                   /* the watch's figures in one line */
} cli_reference_answer;

/* The reference's verdict on stderr ("[reference] quality ok: …", a warning
 * when disturbed), said by verb. */
void cli_reference_say_quality(const char *verb, const cli_reference_answer *answer);

/* prefix.verdict, prefix.cause and prefix.watch into a table's metadata
 * ("context.quality": the runs a calibrated table was fitted to). */
sslat_status cli_reference_record_quality(const cli_reference_answer *answer, const char *prefix,
                                          sslat_container *table, sslat_error *err);

/* Whether name is a reference runtime this command knows; all their names. */
bool cli_reference_known(const char *name);
const char *cli_reference_names(void);

/* Whether the runtime can be the reference of a cpu or cuda table of this
 * dtype: CLI_OK, or CLI_BAD_INPUT having said why not (unknown; torch-default
 * on cpu; onnxruntime's fp32 models for an fp16 / bf16 cuda table). */
int cli_reference_check(const char *verb, const char *runtime, bool cuda, const char *dtype);

/* Whether the project's Python (below) can run the runtime: it imports, and
 * on cuda ONNX Runtime has its CUDA provider and PyTorch sees a device. CLI_OK,
 * or CLI_UNAVAILABLE having said what is missing; checked before a long run. */
int cli_reference_available(const char *runtime, bool cuda);

/* Fill every row's measured time (ms per sample) by running the rows'
 * architectures in the reference runtime through the project's Python
 * (SSLAT_PYTHON, else build/python-venv, else python3); *answer gets the
 * runtime's own description and compile times. Returns an exit code; 3 when the runtime is not
 * installed (what to install is said), 1 when it failed (its message is passed
 * on). Works in a private temporary folder, removed at the end. */
int cli_reference_measure(const sslat_space *space, sslat_validation *validation, const cli_reference_options *options,
                          cli_reference_answer *answer);

/* The same for bare architectures (context mode's runs): ms[k] of archs[k]. */
int cli_reference_measure_architectures(const sslat_space *space, const int32_t *const *archs, size_t n,
                                        const cli_reference_options *options, double *ms,
                                        cli_reference_answer *answer);

#endif
