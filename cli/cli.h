/* Shared pieces of the sslat command: exit codes, space loading, number parsing. */
#ifndef SSLAT_CLI_H
#define SSLAT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "calc/calculator.h"
#include "sslat.h"

/* Exit codes of every verb (docs/cli.md). */
enum {
    CLI_OK = 0,
    CLI_FAILURE = 1,     /* a run-time failure: I/O, out of memory */
    CLI_BAD_INPUT = 2,   /* bad usage, a malformed or invalid search-space file */
    CLI_UNAVAILABLE = 3, /* the calculator cannot run in this build or on this machine */
    CLI_INTERRUPTED = 4, /* SIGINT / SIGTERM: the journal holds the work done (--resume) */
    CLI_INCOMPLETE = 5,  /* measure --keep-going: the table is written, some units failed (--resume) */
    CLI_DISTURBED = 6,   /* measure --strict: the table is written, its quality verdict is disturbed */
};

int cli_exit_code(sslat_status status);

/* ---- one parser for every verb --------------------------------------------------
 * Each verb reads as parse -> check -> run -> write. Parsing is the same for
 * all: a verb describes its command line in a cli_verb and hands its options,
 * one at a time, to its own option function; cli_parse does the rest. */

/* cli_parse's answer after printing a verb's --help: the verb returns CLI_OK. */
#define CLI_HELP (-1)

typedef struct cli_verb {
    const char *name;              /* "merge": messages read "sslat merge: ..." */
    const char *short_options;     /* getopt's letters, "c:o:h" (h: the help) */
    const struct option *options;  /* getopt_long's table, {"help", ..., 'h'} in it, {NULL} last */
    void (*usage)(void);           /* --help on stdout */
    /* One option (never 'h'): CLI_OK, or an exit code after saying what is wrong. */
    int (*option)(int opt, const char *value, void *args);
    int min_args, max_args;        /* positional arguments (max_args -1: any number) */
    /* What the verb takes, said when the count is wrong: "sslat NAME: expects
     * HINT". NULL (only for a verb that takes no or optional arguments): the
     * first extra argument is named instead. */
    const char *expects;
} cli_verb;

/* Parse argv (argv[0] the verb) into args through verb->option: CLI_OK with
 * *first the index of the first positional argument, CLI_HELP after printing
 * the usage, or an exit code after saying what is wrong (getopt names an
 * unknown option). */
int cli_parse(const cli_verb *verb, int argc, char **argv, void *args, int *first);

/* "sslat NAME: expects HINT" on stderr; returns CLI_BAD_INPUT (a verb whose
 * required option is missing says the same as a wrong argument count). */
int cli_expects(const cli_verb *verb);

/* The calculator a verb takes without -c: the best that can run here (the
 * registry lists the best last), or NULL when none can. */
const sslat_calculator *cli_best_calculator(void);

/* *slot = value for an option given at most once: a second -c or -o is
 * refused (naming it), not silently the one that wins. */
bool cli_set_once(const char **slot, const char *value, const char *verb, const char *option);

/* From now on SIGINT and SIGTERM only set the returned flag (also when the
 * shell started the command with SIGINT ignored, as `cmd &` does): the run
 * stops at its next check, cleans up and exits CLI_INTERRUPTED. */
volatile int *cli_catch_stop_signals(void);
bool cli_stop_requested(void);

/* A name or label from a file, for the terminal or a CSV: every control
 * character written out (sslat_escape_controls), cut at a whole character
 * past 4 KiB. Points into one of
 * eight rotating buffers: valid until eight more calls. */
const char *cli_text(const char *untrusted);

/* "note: the latency table's quality verdict is DISTURBED: <cause>" (and a
 * fit's disturbed reference runs) when it is not ok; nothing otherwise. role:
 * "latency", "value". */
void cli_print_quality_note(FILE *out, const sslat_container *table, const char *role);

/* Options every verb that loads a space accepts. */
typedef struct cli_space_args {
    const char *path; /* NULL: the built-in default space */
    sslat_space_options options;
} cli_space_args;

/* Handle --batch / --resolution; returns true when opt was one of them (and
 * sets *exit_code non-zero on a bad value). */
bool cli_space_option(int opt, const char *value, cli_space_args *args, int *exit_code);

/* Load the space, printing the error on failure; returns an exit code. */
int cli_load_space(const cli_space_args *args, sslat_space **space);

/* Parse a whole decimal number in lo..hi; prints an error naming what. */
bool cli_parse_int(const char *text, const char *what, int64_t lo, int64_t hi, int32_t *out);

/* Long options of the space arguments, for getopt_long tables. */
#define CLI_OPT_BATCH 1001
#define CLI_OPT_RESOLUTION 1002
#define CLI_SPACE_LONG_OPTIONS                                  \
    {"batch", required_argument, NULL, CLI_OPT_BATCH},          \
    {"resolution", required_argument, NULL, CLI_OPT_RESOLUTION}

#define CLI_SPACE_HELP                                                                     \
    "  SPACE              search-space file (JSON); omitted: the built-in default space\n" \
    "  --batch N          override the input batch (N of every tensor)\n"                  \
    "  --resolution R     override the input resolution: R (square) or HxW\n"

/* Options of the cuda calculator, shared by measure, validate and sweep. */
#define CLI_OPT_DEVICE 1101
#define CLI_OPT_DTYPE 1102
#define CLI_OPT_LAYOUT 1103
#define CLI_OPT_COLD 1104
#define CLI_OPT_PROFILE 1105
#define CLI_OPT_CACHE 1106
#define CLI_OPT_CUDA_API 1107
#define CLI_OPT_SELECTION_CACHE 1108
#define CLI_DEVICE_LONG_OPTIONS                              \
    {"device", required_argument, NULL, CLI_OPT_DEVICE},     \
    {"dtype", required_argument, NULL, CLI_OPT_DTYPE},       \
    {"layout", required_argument, NULL, CLI_OPT_LAYOUT},     \
    {"cold", no_argument, NULL, CLI_OPT_COLD},               \
    {"cache", required_argument, NULL, CLI_OPT_CACHE},       \
    {"profile", no_argument, NULL, CLI_OPT_PROFILE},         \
    {"cuda-api", required_argument, NULL, CLI_OPT_CUDA_API},     \
    {"selection-cache", required_argument, NULL, CLI_OPT_SELECTION_CACHE}

#define CLI_DEVICE_HELP                                                                          \
    "  --device N         GPU index (default: LOCAL_RANK, SLURM_LOCALID or\n"                    \
    "                     OMPI_COMM_WORLD_LOCAL_RANK modulo the GPUs, else 0)\n"               \
    "  --dtype D          fp32 (default), tf32, fp16, bf16 (the cpu calculator: fp32 only)\n"   \
    "  --layout L         nchw or nhwc (default: nhwc for fp16 / bf16, nchw otherwise)\n"      \
    "  --cold             --cache cold: flush L2 before each sample (default: hot, copies\n"  \
    "                     over rotating buffers so a replay lasts >= 0.2 ms)\n"             \
    "  --profile          run each unit once more between cudaProfilerStart / Stop (for\n"    \
    "                     nsys profile --capture-range=cudaProfilerApi)\n"                   \
    "  --cuda-api A       legacy (default) or graph: convolutions through cuDNN's graph API,\n" \
    "                     engines from its heuristics, the fastest of the first 10 kept\n" \
    "  --selection-cache F  folder of the kept algorithm and engine choices, or off\n"     \
    "                     (default: $SSLAT_SELECTION_CACHE, else $XDG_CACHE_HOME/sslat,\n" \
    "                     else ~/.cache/sslat)\n"

/* Handle the device options; returns true when opt was one of them (and sets
 * *exit_code non-zero on a bad value). */
bool cli_device_option(int opt, const char *value, sslat_calc_options *options, int *exit_code);

/* Load a container file, printing the error on failure; returns an exit code. */
int cli_load_container(const char *path, sslat_container **container);

/* Parse "0,3,1" (or "[0, 3, 1]") into arch (capacity entries); returns the
 * length, or -1 after printing what is wrong. */
int32_t cli_parse_arch(const char *text, int32_t *arch, int32_t capacity);

/* Print an architecture as "0,3,1" (or joined by another separator: "0;3;1"). */
void cli_print_arch(FILE *out, const int32_t *arch, int32_t length);
void cli_print_arch_joined(FILE *out, const int32_t *arch, int32_t length, const char *separator);

/* The shard of this run: "--shard I/N" when given, else the Slurm job-array
 * variables, else 0/1. Returns an exit code (error printed). */
int cli_shard_options(const char *text, int32_t *index, int32_t *count);

/* Print a JSON value for machines (17 significant digits) and release it;
 * CLI_FAILURE, said, when root is NULL (a json_pack that failed). */
int cli_print_json(json_t *root);

/* A double for JSON: null when it is not finite (JSON has no inf). */
json_t *cli_json_number(double value);

/* Whether two paths name the same file (an existing one by device and inode;
 * one to be made by its resolved folder and name). "-" is standard output. */
bool cli_same_path(const char *a, const char *b);

/* Refuse, naming both, an output that is one of the inputs or another output
 * (NULL entries are skipped), and an output that cannot be written (its
 * folder missing or read-only, a dangling link or a loop, a directory): all
 * before anything runs, so hours of measuring never end in a write that
 * fails. Returns CLI_OK, CLI_BAD_INPUT (an output that is an input or
 * another output) or CLI_FAILURE (an output that cannot be written). */
int cli_check_paths(const char *verb, const char *const *inputs, size_t n_in, const char *const *outputs, size_t n_out);

/* Write text to path atomically, or to stdout when path is "-"; returns an exit code. */
int cli_write_text(const char *path, const char *text, const char *verb);


int cmd_show(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_arch(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_export_onnx(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_import_enot(int argc, char **argv);
int cmd_budget(int argc, char **argv);
int cmd_pareto(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_calculators(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
