/* sslat_report_html: check what a caller passed (tables of one space, an
 * architecture of it, validation results as `sslat validate --json` prints
 * them), then render the page. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/abi.h"
#include "base/error.h"
#include "base/limits.h"
#include "base/text.h"
#include "report/report.h"
#include "stats/fits.h"
#include "stats/stats.h"
#include "table/container.h"

#define REPORT_DEFAULT_SAMPLES 20000

/* {"runtime", "architectures": [{label, predicted_ms, measured_ms, mmac}]} */
static sslat_status parse_validation(const char *text, const char *name, report_validation_row **rows,
                                     int32_t *count, char *runtime, size_t runtime_size, uint64_t *seed,
                                     sslat_error *err)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    if (!root) return sslat_fail(err, SSLAT_ERR_PARSE, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
    json_t *list = json_object_get(root, "architectures");
    size_t n = json_is_array(list) ? json_array_size(list) : 0;
    if (n == 0 || n > SSLAT_MAX_VALIDATION_ROWS) {
        json_decref(root);
        return sslat_fail(err, SSLAT_ERR_PARSE, "%s: expected \"architectures\": a list of 1..%d results "
                          "(the output of sslat validate --json)", name, SSLAT_MAX_VALIDATION_ROWS);
    }
    report_validation_row *out = calloc(n, sizeof *out);
    if (!out) {
        json_decref(root);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        json_t *item = json_array_get(list, i);
        json_t *p = json_object_get(item, "predicted_ms"), *m = json_object_get(item, "measured_ms");
        const char *label = json_string_value(json_object_get(item, "label"));
        const char *bad = !json_is_number(p) ? "predicted_ms" : !json_is_number(m) ? "measured_ms" : NULL;
        if (!bad && !(json_number_value(p) >= 0 && isfinite(json_number_value(p)))) bad = "predicted_ms";
        if (!bad && !(json_number_value(m) > 0 && isfinite(json_number_value(m)))) bad = "measured_ms";
        if (bad) {
            free(out);
            json_decref(root);
            return sslat_fail(err, SSLAT_ERR_PARSE, "%s: architectures[%zu].%s must be a finite number%s", name, i, bad,
                              strcmp(bad, "measured_ms") ? " >= 0" : " > 0");
        }
        snprintf(out[i].label, sizeof out[i].label, "%s", label ? label : "");
        sslat_utf8_cut_whole(out[i].label);
        out[i].predicted = json_number_value(p);
        out[i].measured = json_number_value(m);
        json_t *macs = json_object_get(item, "mmac"); /* validate's MAC count of the row (absent before it had one) */
        out[i].macs = json_is_number(macs) && isfinite(json_number_value(macs)) ? json_number_value(macs) : NAN;
    }
    const char *who = json_string_value(json_object_get(root, "runtime"));
    snprintf(runtime, runtime_size, "%s", who ? who : "");
    sslat_utf8_cut_whole(runtime); /* a long one is cut at a whole character: the page stays UTF-8 */
    json_t *bootstrap = json_object_get(root, "bootstrap_seed"); /* absent before validate had intervals */
    *seed = json_is_integer(bootstrap) ? (uint64_t)json_integer_value(bootstrap) : 0;
    json_decref(root);
    *rows = out;
    *count = (int32_t)n;
    return SSLAT_OK;
}

/* A second table (MACs, a value) must describe the latency table's space. */
static sslat_status check_second_table(const sslat_container *table, const sslat_container *other, const char *what,
                                       sslat_error *err)
{
    sslat_error why;
    sslat_status status = sslat_check_table_pair(table, other, &why);
    if (status != SSLAT_OK)
        return sslat_fail(err, status, "the %s table (space '%s') is not a table of the latency table's space "
                          "'%s': %s", what, sslat_container_space_name(other), sslat_container_space_name(table),
                          why.message);
    return SSLAT_OK;
}

sslat_status sslat_report_html(const sslat_container *table, const sslat_report_options *options, char **html,
                               sslat_error *error)
{
    sslat_error_clear(error);
    if (!table || !html) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *html = NULL;
    sslat_report_options none = SSLAT_REPORT_OPTIONS_INIT;
    const sslat_report_options *o = options ? options : &none;
    sslat_status sized = sslat_check_struct_size(o->size, sizeof *o, "sslat_report_options", error);
    if (sized != SSLAT_OK) return sized;
    sslat_status status = sslat_container_require_complete(table, error);
    if (status == SSLAT_OK && o->space) status = sslat_table_fits_space(table, o->space, error);
    if (status == SSLAT_OK && o->mac) status = check_second_table(table, o->mac, "MAC", error);
    if (status == SSLAT_OK && o->value) status = check_second_table(table, o->value, "value", error);
    if (status != SSLAT_OK) return status;
    if (o->samples < 0 || o->samples > 10000000)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "samples is %d: 0 (default %d) to 10000000", o->samples,
                          REPORT_DEFAULT_SAMPLES);

    int32_t blocks = sslat_container_block_count(table);
    int32_t *arch = calloc((size_t)blocks + 1, sizeof *arch);
    if (!arch) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    bool have_arch = false;
    if (o->arch) {
        double check;
        status = sslat_current_latency(table, o->arch, o->arch_length, &check, error);
        if (status == SSLAT_OK) memcpy(arch, o->arch, (size_t)blocks * sizeof *arch);
        have_arch = true;
    } else if (o->space && sslat_space_arch(o->space, arch, blocks) > 0) {
        have_arch = true;
    }
    report_validation_row *rows = NULL;
    char runtime[512] = "";
    report_input in = {0};
    if (status == SSLAT_OK && o->validation_json)
        status = parse_validation(o->validation_json, o->validation_name ? o->validation_name : "validation",
                                  &rows, &in.n_validation, runtime, sizeof runtime, &in.validation_seed, error);
    if (status == SSLAT_OK) {
        in.table_name = o->table_name;
        in.table = table;
        in.space = o->space;
        in.mac = o->mac;
        in.value = o->value ? o->value : o->mac;
        in.current_arch = have_arch ? arch : NULL;
        in.validation = rows;
        in.validation_runtime = runtime[0] ? runtime : NULL;
        in.samples = o->samples ? o->samples : REPORT_DEFAULT_SAMPLES;
        in.seed = o->seed;
        status = report_render(&in, html, error);
    }
    free(rows);
    free(arch);
    return status;
}
