/* sslat plot: the Pareto front (or several, overlaid) of latency against a
 * value as a figure a paper can use (SVG and PDF: report/front_figure.h),
 * and on stdout the table of each front's numbered points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/arch_list.h"
#include "cli/cli.h"
#include "report/front_figure.h"
#include "table/container.h"

enum { MAX_OUTPUTS = 4, MAX_REFERENCES = 32 };

static void plot_usage(void)
{
    printf("usage: sslat plot LAT.sslat VALUE.sslat [LAT2.sslat VALUE2.sslat ...] -o FIG.svg|FIG.pdf\n"
           "                  [-o ...] [--label TEXT ...] [--ref NAME=ARCH | --ref NAME=TABLE.sslat@VALUE ...]\n"
           "                  [--arch ARCH] [--points N] [--size WxH]\n\n"
           "Draws the Pareto front of latency (x, lower is better) against VALUE's total (y,\n"
           "higher is better) as a standalone vector figure: SVG or PDF by the extension of\n"
           "each -o (give both to get both). Several LAT VALUE pairs overlay their fronts (cpu\n"
           "and gpu tables, two spaces, two dtypes) on one pair of axes: one latency unit, one\n"
           "value name and unit. Each front is a step line with N points (default 8; 0: none)\n"
           "numbered on it, spread evenly in latency, listed with their architectures on\n"
           "stdout; a band of +/- 1 standard deviation of latency where the entries were\n"
           "timed; a legend when there are several fronts (--label names them in order).\n"
           "  --ref NAME=ARCH          a reference network of the first front's space, as a\n"
           "                           labelled square (e.g. --ref mbv2=1,1,1,...)\n"
           "  --ref NAME=TABLE@VALUE   a fixed network's table (its total is the latency) and\n"
           "                           its value in VALUE's unit (e.g. --ref resnet18=r18.sslat@69.8)\n"
           "  --arch ARCH              the chosen architecture, as a labelled triangle\n"
           "  --size WxH               in points (default 252x189: one column of a paper)\n"
           "No script, no network, no font to install: Helvetica, named as the PDF standard\n"
           "fonts are. The SVG's <desc> and the PDF's subject say what each front predicts\n"
           "and the machine it was measured on.\n");
}

enum { OPT_LABEL = 2201, OPT_REF, OPT_ARCH, OPT_POINTS, OPT_SIZE };

typedef struct plot_args {
    const char *outputs[MAX_OUTPUTS];
    int n_outputs;
    const char *labels[FRONT_FIGURE_MAX_FRONTS];
    int n_labels;
    const char *refs[MAX_REFERENCES];
    int n_refs;
    const char *arch, *size;
    int32_t points;
    bool points_given;
} plot_args;

static int plot_option(int opt, const char *value, void *args)
{
    plot_args *a = args;
    switch (opt) {
    case 'o':
        if (a->n_outputs == MAX_OUTPUTS) {
            fprintf(stderr, "sslat plot: at most %d -o\n", MAX_OUTPUTS);
            return CLI_BAD_INPUT;
        }
        a->outputs[a->n_outputs++] = value;
        return CLI_OK;
    case OPT_LABEL:
        if (a->n_labels == FRONT_FIGURE_MAX_FRONTS) {
            fprintf(stderr, "sslat plot: at most %d --label (one per front)\n", FRONT_FIGURE_MAX_FRONTS);
            return CLI_BAD_INPUT;
        }
        a->labels[a->n_labels++] = value;
        return CLI_OK;
    case OPT_REF:
        if (a->n_refs == MAX_REFERENCES) {
            fprintf(stderr, "sslat plot: at most %d --ref\n", MAX_REFERENCES);
            return CLI_BAD_INPUT;
        }
        a->refs[a->n_refs++] = value;
        return CLI_OK;
    case OPT_ARCH: return cli_set_once(&a->arch, value, "plot", "--arch") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_SIZE: return cli_set_once(&a->size, value, "plot", "--size") ? CLI_OK : CLI_BAD_INPUT;
    case OPT_POINTS:
        if (a->points_given) {
            fprintf(stderr, "sslat plot: --points given twice\n");
            return CLI_BAD_INPUT;
        }
        a->points_given = true;
        return cli_parse_int(value, "--points", 0, FRONT_FIGURE_MAX_NUMBERED, &a->points) ? CLI_OK : CLI_BAD_INPUT;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option PLOT_OPTIONS[] = {{"output", required_argument, NULL, 'o'},
                                             {"label", required_argument, NULL, OPT_LABEL},
                                             {"ref", required_argument, NULL, OPT_REF},
                                             {"arch", required_argument, NULL, OPT_ARCH},
                                             {"points", required_argument, NULL, OPT_POINTS},
                                             {"size", required_argument, NULL, OPT_SIZE},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
static const cli_verb PLOT = {"plot", "o:h", PLOT_OPTIONS, plot_usage, plot_option, 2, 2 * FRONT_FIGURE_MAX_FRONTS,
                              "LAT.sslat VALUE.sslat pairs and -o FIG.svg|FIG.pdf"};

/* An architecture of table's space from text; false (said) when it is not one. */
static bool parse_arch_of(const sslat_container *table, const char *text, const char *what, int32_t *arch)
{
    int32_t blocks = sslat_container_block_count(table);
    int32_t n = cli_parse_arch(text, arch, blocks + 1);
    if (n < 0) return false;
    if (n != blocks) {
        fprintf(stderr, "sslat plot: %s: %d indices for a space of %d blocks\n", what, (int)n, (int)blocks);
        return false;
    }
    for (int32_t b = 0; b < blocks; b++)
        if (arch[b] >= sslat_container_candidate_count(table, b)) {
            fprintf(stderr, "sslat plot: %s: block %d has %d candidates, not %d\n", what, (int)b,
                    (int)sslat_container_candidate_count(table, b), (int)arch[b] + 1);
            return false;
        }
    return true;
}

/* An architecture's total in a table (the architecture is checked before). */
static double total_of(const sslat_container *t, const int32_t *arch)
{
    double total = NAN;
    sslat_current_latency(t, arch, sslat_container_block_count(t), &total, NULL);
    return total;
}

/* --ref NAME=ARCH (of the first front; said so where there are several
 * fronts) or NAME=TABLE.sslat@VALUE (a fixed network). */
static int parse_reference(const char *text, const sslat_container *latency, const sslat_container *value,
                           bool several, sslat_plot_reference *ref, char *name, size_t name_size)
{
    const char *equals = strchr(text, '=');
    if (!equals || equals == text || (size_t)(equals - text) >= name_size) {
        fprintf(stderr, "sslat plot: --ref '%s': NAME=ARCH or NAME=TABLE.sslat@VALUE (a name of 1 to %zu bytes)\n",
                cli_text(text), name_size - 1);
        return CLI_BAD_INPUT;
    }
    snprintf(name, name_size, "%.*s", (int)(equals - text), text);
    ref->name = name;
    const char *rest = equals + 1, *at = strrchr(rest, '@');
    if (!at) {
        int32_t *arch = calloc((size_t)sslat_container_block_count(latency) + 2, sizeof *arch);
        bool ok = arch && parse_arch_of(latency, rest, "--ref", arch);
        if (ok) ref->latency = total_of(latency, arch), ref->value = total_of(value, arch);
        if (ok && several && strlen(name) + 11 < name_size) strcat(name, " (front 1)");
        free(arch);
        return ok ? CLI_OK : CLI_BAD_INPUT;
    }
    char path[4096];
    snprintf(path, sizeof path, "%.*s", (int)(at - rest), rest);
    char *end = NULL;
    ref->value = strtod(at + 1, &end);
    if (end == at + 1 || *end || !isfinite(ref->value)) {
        fprintf(stderr, "sslat plot: --ref %s: the value after @ is a number in %s's unit, got '%s'\n", name,
                sslat_container_value_name(value), cli_text(at + 1));
        return CLI_BAD_INPUT;
    }
    sslat_container *fixed = NULL;
    int code = cli_load_container(path, &fixed);
    if (code != CLI_OK) return code;
    sslat_error err;
    if (sslat_container_require_complete(fixed, &err) != SSLAT_OK ||
        strcmp(sslat_container_unit(fixed), sslat_container_unit(latency))) {
        fprintf(stderr, "sslat plot: --ref %s: %s: %s\n", name, path,
                strcmp(sslat_container_unit(fixed), sslat_container_unit(latency)) ? "its unit is not the fronts'"
                                                                                      : err.message);
        code = CLI_BAD_INPUT;
    }
    /* a fixed network's table has no blocks; of a space, its fastest architecture would be a guess */
    if (code == CLI_OK && sslat_container_block_count(fixed) != 0) {
        fprintf(stderr, "sslat plot: --ref %s: %s is a table of a search space (%d blocks): give NAME=ARCH of the "
                        "front's space, or the table of a fixed network\n", name, path,
                (int)sslat_container_block_count(fixed));
        code = CLI_BAD_INPUT;
    }
    if (code == CLI_OK) ref->latency = sslat_container_constant_latency(fixed);
    sslat_container_free(fixed);
    return code;
}

/* Each front's numbered points: number, latency, value, architecture and labels. */
static int print_numbered(const sslat_container *const *latency, const sslat_container *const *value, size_t fronts,
                          const char *const *labels, int32_t numbered)
{
    for (size_t f = 0; f < fronts && numbered > 0; f++) {
        sslat_pareto_front *front = NULL;
        sslat_error err;
        if (sslat_pareto_compute(latency[f], value[f], 0, &front, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat plot: %s\n", err.message);
            return cli_exit_code(err.status);
        }
        int32_t blocks = sslat_container_block_count(latency[f]);
        int64_t *chosen = calloc((size_t)numbered + 1, sizeof *chosen);
        int32_t *archs = calloc(((size_t)numbered + 1) * ((size_t)blocks + 1), sizeof *archs);
        cli_arch_point *list = calloc((size_t)numbered + 1, sizeof *list);
        int64_t count = chosen && archs && list ? front_figure_numbered(front, numbered, chosen) : 0;
        for (int64_t k = 0; k < count; k++) {
            int32_t *arch = &archs[(size_t)k * ((size_t)blocks + 1)];
            sslat_pareto_point(front, (int32_t)chosen[k], arch, blocks + 1, &list[k].latency, &list[k].value, NULL);
            list[k].arch = arch;
        }
        char label[160];
        if (labels[f]) snprintf(label, sizeof label, "%s", labels[f]);
        else front_figure_default_label(latency[f], label, sizeof label);
        printf("%sfront %zu: %s (%lld points%s), points numbered on the figure:\n", f ? "\n" : "", f + 1,
               cli_text(label), (long long)sslat_pareto_front_size(front),
               sslat_pareto_slack(front) > 0 ? ", thinned on a latency grid" : ", exact");
        cli_arch_list_text(stdout, latency[f], value[f], list, (int32_t)count);
        free(chosen), free(archs), free(list);
        sslat_pareto_free(front);
    }
    return CLI_OK;
}

int cmd_plot(int argc, char **argv)
{
    plot_args a = {0};
    int first, code = cli_parse(&PLOT, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    int given = argc - first;
    if (!a.n_outputs || given % 2) {
        if (given % 2) fprintf(stderr, "sslat plot: tables come in pairs, LAT.sslat VALUE.sslat: got %d\n", given);
        return cli_expects(&PLOT);
    }
    size_t fronts = (size_t)given / 2;
    if (a.n_labels && (size_t)a.n_labels != fronts) {
        fprintf(stderr, "sslat plot: %d --label for %zu fronts: one per front, in order\n", a.n_labels, fronts);
        return CLI_BAD_INPUT;
    }
    const char *outputs[MAX_OUTPUTS];
    memcpy(outputs, a.outputs, sizeof outputs);
    code = cli_check_paths("plot", (const char *const *)&argv[first], (size_t)given, outputs, (size_t)a.n_outputs);
    if (code != CLI_OK) return code;
    int32_t width = 0, height = 0;
    if (a.size) {
        char tail = 0;
        if (sscanf(a.size, "%dx%d%c", &width, &height, &tail) != 2) {
            fprintf(stderr, "sslat plot: --size is WxH in points, e.g. 252x189, got '%s'\n", cli_text(a.size));
            return CLI_BAD_INPUT;
        }
    }
    sslat_container *tables[2 * FRONT_FIGURE_MAX_FRONTS] = {0};
    const sslat_container *latency[FRONT_FIGURE_MAX_FRONTS], *value[FRONT_FIGURE_MAX_FRONTS];
    for (int i = 0; code == CLI_OK && i < given; i++) code = cli_load_container(argv[first + i], &tables[i]);
    for (size_t f = 0; code == CLI_OK && f < fronts; f++) latency[f] = tables[2 * f], value[f] = tables[2 * f + 1];
    sslat_plot_reference refs[MAX_REFERENCES];
    char names[MAX_REFERENCES][64];
    for (int r = 0; code == CLI_OK && r < a.n_refs; r++) {
        code = parse_reference(a.refs[r], latency[0], value[0], fronts > 1, &refs[r], names[r], sizeof names[r]);
    }
    int32_t *chosen = NULL;
    if (code == CLI_OK && a.arch) {
        chosen = calloc((size_t)sslat_container_block_count(latency[0]) + 2, sizeof *chosen);
        if (!chosen || !parse_arch_of(latency[0], a.arch, "--arch", chosen)) code = CLI_BAD_INPUT;
    }
    const char *labels[FRONT_FIGURE_MAX_FRONTS] = {0};
    for (int i = 0; i < a.n_labels; i++) labels[i] = a.labels[i];
    sslat_plot_options options = SSLAT_PLOT_OPTIONS_INIT;
    options.labels = labels;
    options.references = refs;
    options.reference_count = (size_t)a.n_refs;
    options.chosen = chosen;
    options.chosen_length = chosen ? sslat_container_block_count(latency[0]) : 0;
    options.numbered = a.points_given ? (a.points ? a.points : -1) : 0;
    options.width_pt = width;
    options.height_pt = height;
    sslat_error err;
    for (int o = 0; code == CLI_OK && o < a.n_outputs; o++) {
        sslat_status status = sslat_plot_fronts(latency, value, fronts, &options, outputs[o], &err);
        if (status != SSLAT_OK) {
            fprintf(stderr, "sslat plot: %s\n", cli_text(err.message));
            code = cli_exit_code(status);
        } else {
            fprintf(stderr, "sslat plot: wrote %s\n", outputs[o]);
        }
    }
    if (code == CLI_OK)
        code = print_numbered(latency, value, fronts, labels, a.points_given ? a.points : 8);
    free(chosen);
    for (int i = 0; i < given; i++) sslat_container_free(tables[i]);
    return code;
}
