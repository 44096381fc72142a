#include "base/memory.h"

#include <stdlib.h>
#include <string.h>

#include "sslat.h"

char *sslat_strdup(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy) memcpy(copy, text, size);
    return copy;
}

void sslat_free(void *pointer) { free(pointer); }
