/* The latency types a table can hold: one per calculator, with its unit and,
 * where enot.latency has one, ENOT's name for it ("mmac.thop" is "mac_thop"),
 * so its users' calls and files keep their names. A leaf: the container and
 * the calculator registry both read it. */
#ifndef SSLAT_LATENCY_TYPE_H
#define SSLAT_LATENCY_TYPE_H

#include <stdbool.h>

typedef struct sslat_latency_type {
    const char *name;      /* sslat's name: "mac_thop" */
    const char *enot_name; /* enot.latency's: "mmac.thop", or NULL */
    const char *unit;      /* of every value: "MMAC", "ms" */
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

int sslat_latency_type_count(void);
const sslat_latency_type *sslat_latency_type_at(int index);

#endif
