#include "base/assert.h"

#include <stdio.h>
#include <stdlib.h>

void sslat_abort(const char *file, int line, const char *what)
{
    fprintf(stderr, "sslat: internal error at %s:%d: assertion '%s' failed\n", file, line, what);
    abort();
}
