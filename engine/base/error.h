/* Filling sslat_error: one message per failure, prefixed as it travels up. */
#ifndef SSLAT_ERROR_H
#define SSLAT_ERROR_H

#include "sslat.h"

/* Set err (may be NULL) to status and a printf-style message; returns status. */
sslat_status sslat_fail(sslat_error *err, sslat_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Put "prefix" in front of err's message (e.g. the JSON path). */
void sslat_error_prefix(sslat_error *err, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

void sslat_error_clear(sslat_error *err);

#endif
