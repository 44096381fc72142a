/* sslat validate in a build without oneDNN. */
#include <stdio.h>

#include "cli.h"

int cmd_validate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "sslat validate: this build has no oneDNN (install libdnnl-dev and rebuild)\n");
    return CLI_UNAVAILABLE;
}
