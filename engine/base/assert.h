/* Programmer errors: a broken invariant aborts with file:line. Everything a
 * user can cause returns an sslat_status instead (base/error.h). */
#ifndef SSLAT_ASSERT_H
#define SSLAT_ASSERT_H

#define SSLAT_ASSERT(cond)                                                        \
    do {                                                                          \
        if (!(cond)) sslat_abort(__FILE__, __LINE__, #cond);                      \
    } while (0)

__attribute__((noreturn)) void sslat_abort(const char *file, int line, const char *what);

#endif
