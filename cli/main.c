/* The sslat command: one verb per file under cli/. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} VERBS[] = {
    {"show", cmd_show, "print a search space as a table: layers, candidates, shapes, params, MACs"},
    {"measure", cmd_measure, "compute a latency table (constant part + per-candidate values)"},
    {"stats", cmd_stats, "statistics of a latency table over its whole search space"},
    {"arch", cmd_arch, "one architecture's latency with its per-block breakdown"},
    {"budget", cmd_budget, "architectures under a latency budget; the best (or k best) by a second table"},
    {"pareto", cmd_pareto, "the Pareto front of latency against a second table (MACs, scores)"},
    {"validate", cmd_validate, "whole architectures measured end to end against the table's prediction"},
    {"merge", cmd_merge, "the parts of a sharded run (--shard I/N) into one table"},
    {"sweep", cmd_sweep, "one table per batch size x resolution, with a summary"},
    {"export", cmd_export, "a container as JSON or CSV"},
    {"export-onnx", cmd_export_onnx, "one architecture of a space as an ONNX model (seeded weights)"},
    {"import", cmd_import, "a JSON export back into a binary container"},
    {"report", cmd_report, "a table as one self-contained HTML page with plots (inline SVG)"},
    {"plot", cmd_plot, "the Pareto front(s) as a figure for a paper (SVG, PDF)"},
    {"import-enot", cmd_import_enot, "an ENOT latency pickle into a container (strict, runs no code)"},
    {"calculators", cmd_calculators, "list the calculators (latency types) and which can run here"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: sslat VERB [options]   (sslat VERB --help for a verb's options)\n\n"
                 "sslat %s builds latency lookup tables for NAS search spaces.\n\nverbs:\n",
            sslat_version());
    for (size_t i = 0; i < sizeof VERBS / sizeof VERBS[0]; i++)
        fprintf(out, "  %-13s %s\n", VERBS[i].name, VERBS[i].summary);
    fprintf(out, "\nexit codes: 0 ok, 1 run-time failure, 2 bad input, 3 calculator unavailable,\n"
                 "            4 interrupted (the journal keeps the work done: --resume)\n");
}

/* The verb named by argv[1], run; its exit status. */
static int run_verb(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_BAD_INPUT;
    }
    const char *verb = argv[1];
    if (!strcmp(verb, "help") && argc == 3) { /* sslat help VERB = sslat VERB --help */
        char *help_argv[] = {argv[2], "--help", NULL};
        for (size_t i = 0; i < sizeof VERBS / sizeof VERBS[0]; i++)
            if (!strcmp(argv[2], VERBS[i].name)) return VERBS[i].run(2, help_argv);
    }
    if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(verb, "--version") || !strcmp(verb, "version")) {
        printf("sslat %s\n", sslat_version());
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof VERBS / sizeof VERBS[0]; i++) {
        if (strcmp(verb, VERBS[i].name) != 0) continue;
        /* getopt names argv[0] in its errors: "sslat stats: unrecognized option" */
        char program[32];
        snprintf(program, sizeof program, "sslat %s", VERBS[i].name);
        argv[1] = program;
        return VERBS[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "sslat: unknown verb '%s'\n\n", verb);
    usage(stderr);
    return CLI_BAD_INPUT;
}

/* What went to stdout, flushed and closed: a write that failed (a full disk,
 * /dev/full, an I/O error) is output lost, so never exit 0 over it. */
static int check_stdout(const char *verb, int code)
{
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    int error = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = true;
        error = errno;
    }
    if (!failed) return code;
    fprintf(stderr, "sslat%s%s: stdout: %s: the output was not written\n", verb ? " " : "", verb ? verb : "",
            error ? strerror(error) : "write error");
    return code == CLI_OK ? CLI_FAILURE : code;
}

int main(int argc, char **argv)
{
    /* past `ulimit -f` a write fails with EFBIG and is reported (the
     * temporary removed), instead of SIGXFSZ killing the process silently */
    signal(SIGXFSZ, SIG_IGN);
    const char *verb = argc > 1 ? argv[1] : NULL; /* (run_verb replaces argv[1], not the text) */
    int code = run_verb(argc, argv);
    return check_stdout(verb, code);
}
