/* A build without MPI: never launched under mpirun as far as sslat knows. */
#include <stdlib.h>

#include "cli/mpi_measure.h"

bool cli_mpi_launched(void) { return false; }

bool cli_mpi_begin(sslat_run_plan *plan, int *rank, int *size)
{
    (void)plan;
    *rank = 0;
    *size = 1;
    return false;
}

int cli_mpi_finish(const sslat_container *part, int code, const char *message, const char *output)
{
    (void)part;
    (void)message;
    (void)output;
    return code;
}
