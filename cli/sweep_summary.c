/* What sslat sweep writes once its points are done: summary.csv / .jsonl (one
 * row per point) and summary.html, the cross-point page that shows where the
 * fastest architecture, and the best one under each budget, change. */
#include "cli/sweep.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli/arch_list.h"
#include "cli/cli.h"
#include "report/svg_plot.h"
#include "table/describe.h"

void point_result_free(point_result *r)
{
    sslat_container_free(r->table);
    sslat_container_free(r->value);
    free(r->argmin);
    free(r->budget_arch);
    free(r->budget_latency);
    free(r->budget_value);
    free(r->budget_fits);
    r->table = r->value = NULL;
    r->argmin = r->budget_arch = NULL;
    r->budget_latency = r->budget_value = NULL;
    r->budget_fits = NULL;
}

/* What the figures of every point mean (each point's own batch). */
static void figures_of(const point_result *rows, int n, char *out, size_t size)
{
    const char *unit = n ? sslat_container_unit(rows[0].table) : "";
    if (n && sslat_table_per_sample(rows[0].table))
        snprintf(out, size, "%s per sample (each point's batch time divided by its batch)", unit);
    else
        snprintf(out, size, "%s for each point's whole batch", unit);
}

/* Column 0: the fastest architecture; column 1 + j: budget j's best (NULL when nothing fits). */
static const int32_t *answer(const point_result *r, int column)
{
    if (column == 0) return r->argmin;
    return r->budget_fits[column - 1] ? &r->budget_arch[(size_t)(column - 1) * (size_t)r->blocks] : NULL;
}

/* An id per distinct architecture of one column, in order of first
 * appearance (-1: nothing fits at that point). */
static void ids_of(const point_result *rows, int n, int column, int *ids)
{
    int distinct = 0;
    for (int k = 0; k < n; k++) {
        const int32_t *arch = answer(&rows[k], column);
        ids[k] = -1;
        if (!arch) continue;
        for (int e = 0; e < k && ids[k] < 0; e++) {
            const int32_t *earlier = answer(&rows[e], column);
            if (earlier && rows[e].blocks == rows[k].blocks &&
                !memcmp(earlier, arch, (size_t)rows[k].blocks * sizeof *arch))
                ids[k] = ids[e];
        }
        if (ids[k] < 0) ids[k] = distinct++;
    }
}

/* An id as printed: A … Z, then A1 … Z1, A2 …; "-" for none. */
static const char *name_of(int id, char out[16])
{
    if (id < 0) snprintf(out, 16, "-");
    else if (id < 26) snprintf(out, 16, "%c", 'A' + id);
    else snprintf(out, 16, "%c%d", 'A' + id % 26, id / 26);
    return out;
}

static int changes_of(const int *ids, int n)
{
    int changes = 0;
    for (int k = 1; k < n; k++) changes += ids[k] != ids[k - 1];
    return changes;
}

/* Whether point k is the first with its (fitting) architecture in the column. */
static bool first_of(const int *ids, int k)
{
    bool first = ids[k] >= 0;
    for (int e = 0; e < k && first; e++) first = ids[e] != ids[k];
    return first;
}

static void write_csv(FILE *c, const point_result *rows, int n, const sweep_answers *a)
{
    fprintf(c, "point,batch,resolution,dtype,unit,figures,min,mean,max,space_arch,argmin_arch,argmin_labels");
    for (int j = 0; j < a->n_budgets; j++)
        fprintf(c, ",budget_%g_latency,budget_%g_%s,budget_%g_arch,budget_%g_labels", a->budgets[j], a->budgets[j],
                a->value_type, a->budgets[j], a->budgets[j]);
    fprintf(c, ",wall_s,reused\n");
    for (int k = 0; k < n; k++) {
        const point_result *r = &rows[k];
        char figures[160], space_arch[32] = "";
        sslat_table_unit_meaning(r->table, figures, sizeof figures);
        if (r->has_space_arch) snprintf(space_arch, sizeof space_arch, "%.17g", r->space_arch);
        fprintf(c, "%s,%d,%d,%s,%s,", r->name, r->batch, r->resolution, r->dtype, sslat_container_unit(r->table));
        sslat_csv_field(c, figures);
        fprintf(c, ",%.17g,%.17g,%.17g,%s,", r->min, r->mean, r->max, space_arch);
        cli_csv_arch(c, r->table, r->argmin, false);
        fputc(',', c);
        cli_csv_arch(c, r->table, r->argmin, true);
        for (int j = 0; j < a->n_budgets; j++) {
            const int32_t *arch = answer(r, 1 + j);
            if (arch) fprintf(c, ",%.17g,%.17g,", r->budget_latency[j], r->budget_value[j]);
            else fputs(",,,", c);
            cli_csv_arch(c, r->table, arch, false);
            fputc(',', c);
            cli_csv_arch(c, r->table, arch, true);
        }
        fprintf(c, ",%.3f,%d\n", r->wall, r->reused);
    }
}

static void write_jsonl(FILE *j, const point_result *rows, int n, const sweep_answers *a)
{
    for (int k = 0; k < n; k++) {
        const point_result *r = &rows[k];
        char figures[160];
        sslat_table_unit_meaning(r->table, figures, sizeof figures);
        json_t *budgets = json_array();
        for (int b = 0; b < a->n_budgets; b++) {
            const int32_t *arch = answer(r, 1 + b);
            json_t *item = arch ? cli_arch_json(r->table, arch, r->budget_latency[b]) : json_object();
            json_object_set_new(item, "limit", json_real(a->budgets[b]));
            json_object_set_new(item, "fits", json_boolean(arch != NULL));
            if (arch) json_object_set_new(item, "value", cli_json_number(r->budget_value[b]));
            json_array_append_new(budgets, item);
        }
        json_t *row = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:f, s:b}",
                                "point", r->name, "batch", r->batch, "resolution", r->resolution, "dtype", r->dtype,
                                "unit", sslat_container_unit(r->table), "figures", figures,
                                "min", cli_json_number(r->min), "mean", cli_json_number(r->mean),
                                "max", cli_json_number(r->max),
                                "space_arch", r->has_space_arch ? cli_json_number(r->space_arch) : json_null(),
                                "argmin", cli_arch_json(r->table, r->argmin, r->min),
                                "value_type", a->value_type, "budgets", budgets, "wall_s", r->wall,
                                "reused", r->reused);
        char *line = row ? json_dumps(row, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
        if (line) fprintf(j, "%s\n", line);
        free(line);
        json_decref(row);
    }
}

/* ---- the cross-point page ---- */

static const char *const PALETTE[] = {"#cfe2ff", "#ffe3c4", "#d3f9d8", "#f3d9fa", "#fff3bf", "#c5f6fa", "#ffd8d8", "#e9ecef"};

static void html_cell(FILE *h, const point_result *r, int column, int id, const sweep_answers *a)
{
    const int32_t *arch = answer(r, column);
    if (!arch) {
        fputs("<td class=\"none\">nothing fits</td>", h);
        return;
    }
    char name[16];
    fprintf(h, "<td style=\"background:%s\"><b>%s</b> %.4g %s", PALETTE[id % 8], name_of(id, name),
            column == 0 ? r->min : r->budget_latency[column - 1], sslat_container_unit(r->table));
    if (column > 0) fprintf(h, ", %.4g %s %s", r->budget_value[column - 1], sslat_container_unit(r->value), a->value_type);
    fputs("</td>", h);
}

static void write_html(FILE *h, const point_result *rows, int n, const sweep_answers *a, const char *dir)
{
    int columns = 1 + a->n_budgets;
    int *ids = calloc((size_t)columns * (size_t)n + 1, sizeof *ids);
    if (!ids) return;
    for (int c = 0; c < columns; c++) ids_of(rows, n, c, &ids[(size_t)c * (size_t)n]);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sslat sweep: ", h);
    plot_escape(h, n ? sslat_container_space_name(rows[0].table) : "");
    fputs("</title><style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}"
          "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
          "vertical-align:top}td.none{color:#888}p{font-size:14px}code{font-size:12px}"
          "@page{size:A4 landscape;margin:12mm}@media print{body{margin:0;max-width:none}"
          "table{break-inside:avoid;page-break-inside:avoid}}</style></head>\n<body>\n<h1>sslat sweep: ", h);
    plot_escape(h, n ? sslat_container_space_name(rows[0].table) : "");
    fputs("</h1>\n<p>Folder ", h);
    plot_escape(h, dir);
    fprintf(h, ", %d points. Each cell names an architecture by a letter (the same letter, the same architecture: "
               "where it changes, the best choice depends on the point). Figures are ", n);
    char figures[160];
    figures_of(rows, n, figures, sizeof figures);
    plot_escape(h, figures);
    fputs(".</p>\n<table id=\"sweep-answers\"><tr><th>point</th><th>fastest architecture</th>", h);
    for (int j = 0; j < a->n_budgets; j++) {
        fprintf(h, "<th>most %s within %g %s</th>", a->value_type, a->budgets[j],
                n ? sslat_container_unit(rows[0].table) : "");
    }
    fputs("</tr>\n", h);
    for (int k = 0; k < n; k++) {
        fputs("<tr><td>", h);
        plot_escape(h, rows[k].name);
        fputs("</td>", h);
        for (int c = 0; c < columns; c++) html_cell(h, &rows[k], c, ids[(size_t)c * (size_t)n + (size_t)k], a);
        fputs("</tr>\n", h);
    }
    fputs("<tr><th>changes</th>", h);
    for (int c = 0; c < columns; c++) fprintf(h, "<td id=\"changes-%d\">%d</td>", c, changes_of(&ids[(size_t)c * (size_t)n], n));
    fputs("</tr></table>\n<h2>The architectures</h2>\n<table id=\"sweep-architectures\"><tr><th>column</th>"
          "<th>letter</th><th>first at</th><th>candidate of each block</th></tr>\n", h);
    for (int c = 0; c < columns; c++)
        for (int k = 0; k < n; k++) {
            const int *column = &ids[(size_t)c * (size_t)n];
            if (!first_of(column, k)) continue;
            char name[16];
            if (c == 0) fputs("<tr><td>fastest</td>", h);
            else fprintf(h, "<tr><td>within %g</td>", a->budgets[c - 1]);
            fprintf(h, "<td><b>%s</b></td><td>", name_of(column[k], name));
            plot_escape(h, rows[k].name);
            fputs("</td><td>", h);
            char *text = NULL;
            size_t size = 0;
            FILE *labels = open_memstream(&text, &size);
            if (labels) {
                cli_print_labels(labels, rows[k].table, answer(&rows[k], c), " · ");
                fputs(" (", labels);
                cli_print_arch(labels, answer(&rows[k], c), rows[k].blocks);
                fputs(")", labels);
                if (fclose(labels) == 0) plot_escape(h, text);
                free(text);
            }
            fputs("</td></tr>\n", h);
        }
    fprintf(h, "</table>\n<p>Made by sslat %s. Self-contained: no script, no network.</p>\n</body></html>\n",
            sslat_version());
    free(ids);
}

int sweep_write_summary(const char *dir, const char *suffix, const point_result *rows, int n,
                        const sweep_answers *answers)
{
    char *text[3] = {NULL, NULL, NULL};
    size_t size[3] = {0, 0, 0};
    const char *extension[3] = {"csv", "jsonl", "html"};
    int code = CLI_OK;
    for (int f = 0; f < 3 && code == CLI_OK; f++) {
        FILE *out = open_memstream(&text[f], &size[f]);
        if (!out) {
            code = CLI_FAILURE;
            break;
        }
        if (f == 0) write_csv(out, rows, n, answers);
        else if (f == 1) write_jsonl(out, rows, n, answers);
        else write_html(out, rows, n, answers, dir);
        if (fclose(out) != 0) code = CLI_FAILURE;
    }
    for (int f = 0; f < 3 && code == CLI_OK; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/summary%s.%s", dir, suffix, extension[f]);
        code = cli_write_text(path, text[f], "sweep");
    }
    for (int f = 0; f < 3; f++) free(text[f]);
    if (code == CLI_FAILURE) fprintf(stderr, "sslat sweep: could not write the summary into %s\n", dir);
    return code;
}

void sweep_print_answers(const point_result *rows, int n, const sweep_answers *a)
{
    if (n == 0) return;
    int *ids = calloc((size_t)n + 1, sizeof *ids);
    if (!ids) return;
    char figures[160];
    figures_of(rows, n, figures, sizeof figures);
    printf("\nfigures are %s\n", figures);
    for (int c = 0; c < 1 + a->n_budgets; c++) {
        ids_of(rows, n, c, ids);
        if (c == 0) printf("fastest architecture per point (a letter per distinct architecture):\n");
        else printf("most %s within %g %s per point:\n", a->value_type, a->budgets[c - 1], sslat_container_unit(rows[0].table));
        bool any = false;
        for (int k = 0; k < n; k++) {
            const int32_t *arch = answer(&rows[k], c);
            char name[16];
            printf("  %-22s %-3s", rows[k].name, name_of(ids[k], name));
            if (!arch) {
                printf("  nothing fits\n");
                continue;
            }
            any = true;
            printf("  %.4g %s", c == 0 ? rows[k].min : rows[k].budget_latency[c - 1], sslat_container_unit(rows[k].table));
            if (c > 0) printf("  %.4g %s %s", rows[k].budget_value[c - 1], sslat_container_unit(rows[k].value), a->value_type);
            printf("  ");
            cli_print_arch(stdout, arch, rows[k].blocks);
            printf("\n");
        }
        for (int k = 0; k < n; k++) { /* each distinct architecture's labels, once */
            if (!first_of(ids, k)) continue;
            char name[16];
            printf("  %s = ", name_of(ids[k], name));
            cli_print_labels(stdout, rows[k].table, answer(&rows[k], c), " ");
            printf("\n");
        }
        if (!any) printf("  nothing fits at any point\n");
        else printf("  %s\n", changes_of(ids, n) ? "the architecture changes between points (summary.html shows where)"
                                                 : "the same architecture at every point");
    }
    free(ids);
}
