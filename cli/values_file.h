/* A user's per-candidate values for sslat import --values: a CSV file
 *     block,candidate,value
 *     constant,,71.3          (optional: 0 when absent)
 *     0,0,0.12                (block and candidate by index...)
 *     features.1,ir_k3_e3,0.15   (...or by name and label)
 * or a JSON file {"constant": x, "values": [[one per candidate], one list per
 * block]} or {"values": {block name: {label: value}}}. Every candidate of the
 * space exactly once; values finite and >= 0. */
#ifndef SSLAT_CLI_VALUES_FILE_H
#define SSLAT_CLI_VALUES_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "sslat.h"

/* values: one per candidate of the space, block after block. false with the
 * error (naming the file, the line or key and what is wrong) otherwise. */
bool cli_read_values(const char *path, const sslat_space *space, double *constant, double *values, char *error,
                     size_t error_size);

#endif
