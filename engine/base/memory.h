/* Small allocation helpers. */
#ifndef SSLAT_MEMORY_H
#define SSLAT_MEMORY_H

/* Duplicate of a string (NULL on allocation failure). */
char *sslat_strdup(const char *text);

#endif
