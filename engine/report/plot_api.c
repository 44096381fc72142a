/* sslat_plot_fronts: check what a caller passed (pairs of tables of one
 * space each, whole and complete), draw the front figure as SVG or PDF in
 * memory, then write it atomically. */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/abi.h"
#include "base/error.h"
#include "base/file_io.h"
#include "report/front_figure.h"
#include "report/svg_plot.h"
#include "stats/stats.h"
#include "table/container.h"

/* ".svg" or ".pdf" at the end of path (any case): true for PDF. */
static sslat_status format_of(const char *path, bool *pdf, sslat_error *err)
{
    size_t n = strlen(path);
    if (n > 4 && !strcasecmp(path + n - 4, ".svg")) *pdf = false;
    else if (n > 4 && !strcasecmp(path + n - 4, ".pdf")) *pdf = true;
    else return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "%s: a figure is written as .svg or .pdf", path);
    return SSLAT_OK;
}

static sslat_status check_pairs(const sslat_container *const *latency, const sslat_container *const *value,
                                size_t fronts, sslat_error *err)
{
    for (size_t i = 0; i < fronts; i++) {
        if (!latency[i] || !value[i]) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "front %zu: NULL table", i + 1);
        sslat_status status = sslat_container_require_complete(latency[i], err);
        if (status == SSLAT_OK) status = sslat_container_require_complete(value[i], err);
        sslat_error why;
        if (status == SSLAT_OK && (status = sslat_check_table_pair(latency[i], value[i], &why)) != SSLAT_OK)
            return sslat_fail(err, status, "front %zu: the value table is not of the latency table's space: %s", i + 1,
                              why.message);
        if (status != SSLAT_OK) return status;
    }
    return SSLAT_OK;
}

sslat_status sslat_plot_fronts(const sslat_container *const *latency, const sslat_container *const *value,
                               size_t fronts, const sslat_plot_options *options, const char *path,
                               sslat_error *error)
{
    sslat_error_clear(error);
    if (!latency || !value || !path) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    sslat_plot_options none = SSLAT_PLOT_OPTIONS_INIT;
    const sslat_plot_options *o = options ? options : &none;
    sslat_status status = sslat_check_struct_size(o->size, sizeof *o, "sslat_plot_options", error);
    bool pdf = false;
    if (status == SSLAT_OK) status = format_of(path, &pdf, error);
    if (status == SSLAT_OK && (fronts < 1 || fronts > FRONT_FIGURE_MAX_FRONTS))
        status = sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "a figure shows 1 to %d fronts, not %zu",
                            FRONT_FIGURE_MAX_FRONTS, fronts);
    if (status == SSLAT_OK) status = check_pairs(latency, value, fronts, error);
    if (status == SSLAT_OK && (o->width_pt < 0 || o->width_pt > 2000 || o->height_pt < 0 || o->height_pt > 2000 ||
                               (o->width_pt && o->width_pt < 120) || (o->height_pt && o->height_pt < 90)))
        status = sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "a figure is 120 to 2000 pt wide and 90 to 2000 pt "
                            "high (0: one column, %.0f x %.0f)", FRONT_FIGURE_WIDTH, FRONT_FIGURE_HEIGHT);
    if (status == SSLAT_OK && (o->numbered < -1 || o->numbered > FRONT_FIGURE_MAX_NUMBERED))
        status = sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "numbered is -1 (none), 0 (8) or up to %d, not %d",
                            FRONT_FIGURE_MAX_NUMBERED, (int)o->numbered);
    if (status != SSLAT_OK) return status;

    front_figure_front pairs[FRONT_FIGURE_MAX_FRONTS];
    for (size_t i = 0; i < fronts; i++)
        pairs[i] = (front_figure_front){latency[i], value[i], o->labels ? o->labels[i] : NULL, NULL};
    front_figure figure = {pairs, fronts, o->references, o->reference_count, o->chosen, o->chosen_length,
                           o->numbered == 0 ? 8 : o->numbered < 0 ? 0 : o->numbered, NULL};
    double width = o->width_pt ? o->width_pt : FRONT_FIGURE_WIDTH;
    double height = o->height_pt ? o->height_pt : FRONT_FIGURE_HEIGHT;
    char title[300], provenance[4096];
    snprintf(title, sizeof title, "Pareto front%s of latency against %s", fronts > 1 ? "s" : "",
             sslat_container_value_name(value[0]));
    front_figure_provenance(&figure, provenance, sizeof provenance);

    char *bytes = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&bytes, &size);
    if (!out) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    canvas c = {0};
    if (pdf) {
        if (!canvas_pdf_begin(&c, width, height, title, provenance)) status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    } else {
        canvas_svg_begin(&c, out, width, height, true, NULL, title);
        fputs("<desc>", out); /* where the figures come from: kept with the drawing */
        plot_escape(out, provenance);
        fputs("</desc>\n", out);
    }
    if (status == SSLAT_OK) status = front_figure_draw(&c, &figure, error);
    if (pdf && c.state && !canvas_pdf_end(&c, out) && status == SSLAT_OK)
        status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory while writing the PDF");
    if (!pdf) canvas_svg_end(&c);
    if (fclose(out) != 0 && status == SSLAT_OK) status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    if (status == SSLAT_OK) status = sslat_write_file_atomic(path, bytes, size, error);
    free(bytes);
    return status;
}
