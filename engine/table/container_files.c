/* Whole files in any of a table's three formats: the sslat binary container,
 * its JSON export and an ENOT latency pickle. A reader tells them apart by
 * their first bytes, so `sslat stats t.pkl` and load_from_file("t.json") work
 * as the Python package always did; every read is bounded and every write goes
 * through the one atomic writer (base/file_io). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/file_io.h"
#include "base/limits.h"
#include "table/container.h"

static const uint8_t BINARY_MAGIC[6] = {0x89, 'S', 'S', 'L', 'A', 'T'};
enum { PICKLE_PROTO = 0x80 }; /* every pickle of protocol 2 or later starts so */

static bool starts_like_json(const char *data, size_t size)
{
    size_t at = 0;
    while (at < size && (data[at] == ' ' || data[at] == '\t' || data[at] == '\n' || data[at] == '\r')) at++;
    return at < size && data[at] == '{';
}

static sslat_status load_bytes_any(const char *data, size_t size, sslat_container **out, sslat_error *error)
{
    if (size >= sizeof BINARY_MAGIC && !memcmp(data, BINARY_MAGIC, sizeof BINARY_MAGIC))
        return sslat_container_load_from_bytes((const uint8_t *)data, size, out, error);
    if (size > 0 && (uint8_t)data[0] == PICKLE_PROTO)
        return sslat_container_import_enot((const uint8_t *)data, size, out, error);
    if (starts_like_json(data, size)) return sslat_container_import_json(data, size, out, error);
    return sslat_fail(error, SSLAT_ERR_PARSE,
                      "not a latency table: neither an sslat container (bad magic), its JSON export "
                      "(no '{') nor an ENOT pickle (no protocol 2+ header)");
}

sslat_status sslat_container_load_from_file(const char *path, sslat_container **out,
                                            sslat_error *error)
{
    sslat_error_clear(error);
    if (!path || !out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    char *data = NULL;
    size_t size = 0;
    sslat_status status = sslat_read_file(path, (size_t)SSLAT_MAX_CONTAINER_BYTES, &data, &size, error);
    if (status == SSLAT_OK) {
        status = load_bytes_any(data, size, out, error);
        if (status != SSLAT_OK) sslat_error_prefix(error, "%s: ", path);
    }
    free(data);
    return status;
}

sslat_status sslat_container_save_to_file_as(const sslat_container *c, const char *path, const char *format,
                                             sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !path) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    if (!format) format = "sslat";
    uint8_t *bytes = NULL;
    size_t size = 0;
    sslat_status status;
    if (!strcmp(format, "sslat")) {
        status = sslat_container_save_to_bytes(c, &bytes, &size, error);
    } else if (!strcmp(format, "enot")) {
        status = sslat_container_export_enot(c, &bytes, &size, error);
    } else if (!strcmp(format, "json")) {
        char *text = NULL;
        status = sslat_container_export_json(c, &text, error);
        bytes = (uint8_t *)text;
        size = text ? strlen(text) : 0;
    } else {
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "%s: format is \"sslat\", \"enot\" or \"json\", not \"%s\"",
                          path, format);
    }
    if (status == SSLAT_OK) status = sslat_write_file_atomic(path, bytes, size, error);
    free(bytes);
    return status;
}

sslat_status sslat_container_save_to_file(const sslat_container *c, const char *path,
                                          sslat_error *error)
{
    return sslat_container_save_to_file_as(c, path, "sslat", error);
}
