/* sslat measure under mpirun: each rank measures one shard, rank 0 gathers the
 * parts, merges them and writes the one table. */
#ifndef SSLAT_CLI_MPI_MEASURE_H
#define SSLAT_CLI_MPI_MEASURE_H

#include <stdbool.h>

#include "calc/calculator.h"

/* Whether this process was started by mpirun with more than one rank (and the
 * build has MPI). */
bool cli_mpi_launched(void);

/* Start MPI; sets the rank's shard in the run's plan. Returns false when MPI cannot start. */
bool cli_mpi_begin(sslat_run_plan *plan, int *rank, int *size);

/* Gather every rank's part (NULL where the rank failed, with its message) to
 * rank 0, which merges and writes output. Returns the exit code every rank
 * agrees on, and finalises MPI. */
int cli_mpi_finish(const sslat_container *part, int code, const char *message, const char *output);

#endif
