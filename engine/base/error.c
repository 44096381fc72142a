#include "base/error.h"

#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sslat_version(void) { return SSLAT_VERSION_STRING; }
int32_t sslat_version_number(void) { return SSLAT_VERSION_NUMBER; }

const char *sslat_status_string(sslat_status status)
{
    switch (status) {
    case SSLAT_OK: return "ok";
    case SSLAT_ERR_INVALID_ARGUMENT: return "invalid argument";
    case SSLAT_ERR_IO: return "input/output error";
    case SSLAT_ERR_PARSE: return "parse error";
    case SSLAT_ERR_SPACE: return "search space invalid or not the table's";
    case SSLAT_ERR_LIMIT: return "safety limit exceeded";
    case SSLAT_ERR_NOMEM: return "out of memory";
    case SSLAT_ERR_UNSUPPORTED: return "not supported here";
    case SSLAT_ERR_NO_DEVICE: return "no device";
    case SSLAT_ERR_INTERRUPTED: return "interrupted";
    case SSLAT_ERR_DEVICE: return "device error";
    }
    return "unknown status";
}

sslat_status sslat_fail(sslat_error *err, sslat_status status, const char *format, ...)
{
    if (err) {
        err->status = status;
        va_list args;
        va_start(args, format);
        char raw[sizeof err->message];
        vsnprintf(raw, sizeof raw, format, args);
        va_end(args);
        /* names from files are echoed: one line, no terminal escapes */
        sslat_escape_controls(raw, err->message, sizeof err->message);
    }
    return status;
}

void sslat_error_prefix(sslat_error *err, const char *format, ...)
{
    if (!err) return;
    char prefix[sizeof err->message];
    va_list args;
    va_start(args, format);
    vsnprintf(prefix, sizeof prefix, format, args);
    va_end(args);
    char joined[sizeof err->message];
    snprintf(joined, sizeof joined, "%s%s", prefix, err->message);
    sslat_escape_controls(joined, err->message, sizeof err->message);
}

void sslat_error_clear(sslat_error *err)
{
    if (!err) return;
    err->status = SSLAT_OK;
    err->message[0] = '\0';
}
