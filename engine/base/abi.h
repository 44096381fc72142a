/* The public structs' layout as this library was built: versioned option
 * structs (a leading size) and sslat_struct_size for bindings that mirror
 * them. */
#ifndef SSLAT_BASE_ABI_H
#define SSLAT_BASE_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "sslat.h"

/* SSLAT_OK when a caller's struct of `size` bytes (0 = this header's) is the
 * one this library knows (`known` bytes); INVALID_ARGUMENT naming the struct
 * otherwise. One layout exists today; a later one would read the prefix an
 * older caller passed. */
sslat_status sslat_check_struct_size(uint32_t size, size_t known, const char *name, sslat_error *err);

#endif
