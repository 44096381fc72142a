/* The latency types a table can hold: one per calculator, with its unit and,
 * where enot.latency has one, ENOT's name for it ("mmac.thop" is "mac_thop"),
 * so its users' calls and files keep their names. A leaf: the container and
 * the calculator registry both read it. */
#ifndef SSLAT_LATENCY_TYPE_H
#define SSLAT_LATENCY_TYPE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sslat_latency_type {
    const char *name;      /* sslat's name: "mac_thop" */
    const char *enot_name; /* enot.latency's: "mmac.thop", or NULL */
    const char *unit;      /* of every value: "MMAC", "ms" ("" for a value table: its own) */
    const char *calculator; /* the calculator that computes it, when not its own name */
} sslat_latency_type;

/* The type of a name (sslat's or ENOT's), or NULL when unknown. */
const sslat_latency_type *sslat_latency_type_find(const char *name);
/* The sslat name of a latency type ("mmac.thop" → "mac_thop"); others unchanged. */
const char *sslat_latency_type_canonical(const char *name);
/* The calculator that computes a type ("mmac" → "mac"); unknown names unchanged. */
const char *sslat_latency_type_calculator(const char *name);
/* The name an ENOT file gives the type ("mac" → "mmac"); others unchanged. */
const char *sslat_latency_type_enot_name(const char *name);
/* Unit of a latency type, or NULL when the type is unknown. */
const char *sslat_latency_type_unit(const char *name);

/* The type of a user's own per-candidate values (accuracy-predictor terms,
 * energy, memory): no fixed unit; each table carries its name (metadata
 * value.name) and unit. */
#define SSLAT_VALUE_TYPE "value"
#define SSLAT_VALUE_NAME_MAX 40
#define SSLAT_VALUE_UNIT_MAX 16

/* Whether a table of this type may carry this unit: the type's own, or for
 * a value table any valid value unit. */
bool sslat_latency_type_unit_fits(const char *name, const char *unit);
/* A value table's name (1 to 40 printable characters, no quote, backslash or
 * comma, not a latency type's name) and unit (0 to 16 of them); why gets the
 * rule broken (may be NULL). */
bool sslat_value_name_valid(const char *name, char *why, size_t size);
bool sslat_value_unit_valid(const char *unit, char *why, size_t size);

int sslat_latency_type_count(void);
const sslat_latency_type *sslat_latency_type_at(int index);

#endif
