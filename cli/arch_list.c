/* Lists of architectures for `sslat pareto` and `sslat budget --top`. */
#include "cli/arch_list.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli/cli.h"
#include "table/container.h"
#include "table/describe.h"

bool cli_set_list_format(cli_list_format *format, cli_list_format wanted, const char *verb)
{
    if (*format != CLI_LIST_TEXT) {
        fprintf(stderr, "sslat %s: one of --json or --csv, once\n", verb);
        return false;
    }
    *format = wanted;
    return true;
}

void cli_print_labels(FILE *out, const sslat_container *table, const int32_t *arch, const char *separator)
{
    for (int32_t b = 0; b < sslat_container_block_count(table); b++) {
        char title[64];
        const char *label = sslat_container_candidate_title(table, b, arch[b], title, sizeof title);
        size_t size = 4 * strlen(label) + 1; /* every byte a control byte: \xNN */
        char *clean = malloc(size);
        if (!clean) continue;
        sslat_escape_controls(label, clean, size);
        fprintf(out, "%s%s", b ? separator : "", clean);
        free(clean);
    }
}

void cli_csv_arch(FILE *out, const sslat_container *table, const int32_t *arch, bool labels)
{
    char *text = NULL;
    size_t size = 0;
    FILE *field = open_memstream(&text, &size);
    if (!field) return;
    if (arch && labels) cli_print_labels(field, table, arch, ";");
    else if (arch) cli_print_arch_joined(field, arch, sslat_container_block_count(table), ";");
    if (fclose(field) == 0) sslat_csv_field(out, text);
    free(text);
}

json_t *cli_arch_json(const sslat_container *table, const int32_t *arch, double latency)
{
    json_t *indices = json_array(), *labels = json_array();
    for (int32_t b = 0; b < sslat_container_block_count(table); b++) {
        char title[64];
        json_array_append_new(indices, json_integer(arch[b]));
        json_array_append_new(labels, json_string(sslat_container_candidate_title(table, b, arch[b], title, sizeof title)));
    }
    return json_pack("{s:o, s:o, s:o}", "arch", indices, "labels", labels, "latency", cli_json_number(latency));
}

static int digits_of(double value)
{
    char text[64];
    return snprintf(text, sizeof text, "%.6g", value);
}

void cli_arch_list_text(FILE *out, const sslat_container *latency, const sslat_container *value,
                        const cli_arch_point *points, int32_t n)
{
    char latency_head[64], value_head[96];
    snprintf(latency_head, sizeof latency_head, "latency %s", sslat_container_unit(latency));
    snprintf(value_head, sizeof value_head, "%s%s%s", sslat_container_value_name(value),
             *sslat_container_unit(value) ? " " : "", sslat_container_unit(value));
    int rank_w = 1, latency_w = (int)strlen(latency_head), value_w = (int)strlen(value_head);
    for (int32_t i = 0; i < n; i++) {
        char rank[16];
        int w = snprintf(rank, sizeof rank, "%d", i + 1);
        if (w > rank_w) rank_w = w;
        if (digits_of(points[i].latency) > latency_w) latency_w = digits_of(points[i].latency);
        if (digits_of(points[i].value) > value_w) value_w = digits_of(points[i].value);
    }
    int32_t blocks = sslat_container_block_count(latency);
    fprintf(out, "%*s  %*s  %*s  arch / labels\n", rank_w, "#", latency_w, latency_head, value_w, value_head);
    for (int32_t i = 0; i < n; i++) {
        fprintf(out, "%*d  %*.6g  %*.6g  ", rank_w, i + 1, latency_w, points[i].latency, value_w, points[i].value);
        cli_print_arch(out, points[i].arch, blocks);
        fprintf(out, "\n%*s  ", rank_w + latency_w + value_w + 4, "");
        cli_print_labels(out, latency, points[i].arch, " ");
        fputc('\n', out);
    }
}

json_t *cli_arch_list_json(const sslat_container *latency, const cli_arch_point *points, int32_t n)
{
    json_t *list = json_array();
    for (int32_t i = 0; list && i < n; i++) {
        json_t *point = cli_arch_json(latency, points[i].arch, points[i].latency);
        json_object_set_new(point, "value", cli_json_number(points[i].value));
        json_array_append_new(list, point);
    }
    return list;
}

void cli_arch_list_csv(FILE *out, const sslat_container *latency, const sslat_container *value,
                       const cli_arch_point *points, int32_t n)
{
    fprintf(out, "rank,latency_%s,", sslat_container_unit(latency));
    char head[128];
    snprintf(head, sizeof head, "%s%s%s", sslat_container_value_name(value), *sslat_container_unit(value) ? "_" : "",
             sslat_container_unit(value));
    sslat_csv_field(out, head);
    fputs(",arch,labels\n", out);
    for (int32_t i = 0; i < n; i++) {
        fprintf(out, "%d,%.17g,%.17g,", i + 1, points[i].latency, points[i].value);
        cli_csv_arch(out, latency, points[i].arch, false);
        fputc(',', out);
        cli_csv_arch(out, latency, points[i].arch, true);
        fputc('\n', out);
    }
}

void cli_arch_list_overflow(const cli_arch_point *list, int32_t n, json_t *overflow)
{
    bool latency = false, value = false;
    for (int32_t i = 0; i < n; i++) {
        latency |= !isfinite(list[i].latency);
        value |= !isfinite(list[i].value);
    }
    if (latency) json_array_append_new(overflow, json_string("latency"));
    if (value) json_array_append_new(overflow, json_string("value"));
}
