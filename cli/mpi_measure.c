#include "cli/mpi_measure.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "table/container.h"

bool cli_mpi_launched(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    if (!size) size = getenv("PMI_SIZE");
    return size && atoi(size) > 1;
}

bool cli_mpi_begin(sslat_run_plan *plan, int *rank, int *size)
{
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) return false;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    plan->shard_index = *rank;
    plan->shard_count = *size;
    plan->progress = plan->progress && *rank == 0;
    return true;
}

enum { MESSAGE = 512 };

int cli_mpi_finish(const sslat_container *part, int code, const char *message, const char *output)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint8_t *bytes = NULL;
    size_t length = 0;
    sslat_error err;
    if (code == CLI_OK && sslat_container_save_to_bytes(part, &bytes, &length, &err) != SSLAT_OK) {
        code = CLI_FAILURE;
        message = err.message;
    }
    int my_length = code == CLI_OK ? (int)length : 0;
    char my_message[MESSAGE] = "";
    snprintf(my_message, sizeof my_message, "%s", message ? message : "");
    int *lengths = rank == 0 ? calloc((size_t)size, sizeof *lengths) : NULL;
    int *codes = rank == 0 ? calloc((size_t)size, sizeof *codes) : NULL;
    char *messages = rank == 0 ? calloc((size_t)size, MESSAGE) : NULL;
    MPI_Gather(&my_length, 1, MPI_INT, lengths, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&code, 1, MPI_INT, codes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(my_message, MESSAGE, MPI_CHAR, messages, MESSAGE, MPI_CHAR, 0, MPI_COMM_WORLD);
    int *offsets = NULL;
    uint8_t *all = NULL;
    if (rank == 0) {
        offsets = calloc((size_t)size + 1, sizeof *offsets);
        for (int r = 0; r < size; r++) offsets[r + 1] = offsets[r] + lengths[r];
        all = malloc((size_t)offsets[size] + 1);
    }
    MPI_Gatherv(bytes, my_length, MPI_BYTE, all, lengths, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
    int final = CLI_OK;
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            if (codes[r] != CLI_OK) {
                fprintf(stderr, "sslat measure: rank %d failed (%s): its shard %d/%d is lost; nothing written\n", r,
                        messages + (size_t)r * MESSAGE, r, size);
                if (final == CLI_OK) final = codes[r];
            }
        sslat_container **parts = calloc(size > 0 ? (size_t)size : 1, sizeof *parts);
        for (int r = 0; final == CLI_OK && r < size; r++)
            if (sslat_container_load_from_bytes(all + offsets[r], (size_t)lengths[r], &parts[r], &err) != SSLAT_OK) {
                fprintf(stderr, "sslat measure: rank %d's part: %s\n", r, err.message);
                final = CLI_FAILURE;
            }
        sslat_container *whole = NULL;
        if (final == CLI_OK) {
            sslat_status status = sslat_container_merge((const sslat_container *const *)parts, (size_t)size, &whole, &err);
            char ranks[16];
            snprintf(ranks, sizeof ranks, "%d", size);
            if (status == SSLAT_OK) status = sslat_container_set_metadata(whole, "mpi.ranks", ranks, &err);
            /* every rank's machine (its CPU, its GPU: rank r on local rank % GPUs), as the table's metadata */
            static const char *const PER_RANK[] = {"host.cpu", "device.name", "device.index"};
            for (int r = 0; status == SSLAT_OK && r < size; r++)
                for (size_t k = 0; status == SSLAT_OK && k < sizeof PER_RANK / sizeof PER_RANK[0]; k++) {
                    const char *value = sslat_container_metadata(parts[r], PER_RANK[k]);
                    char key[48];
                    snprintf(key, sizeof key, "mpi.rank%d.%s", r, PER_RANK[k]);
                    if (value) status = sslat_container_set_metadata(whole, key, value, &err);
                }
            if (status == SSLAT_OK && output) status = sslat_container_save_to_file(whole, output, &err);
            if (status != SSLAT_OK) {
                fprintf(stderr, "sslat measure: %s\n", err.message);
                final = cli_exit_code(status);
            } else {
                if (sslat_container_metadata(whole, "merged.warning"))
                    fprintf(stderr, "sslat measure: warning: %s\n", sslat_container_metadata(whole, "merged.warning"));
                fprintf(stderr, "sslat measure: wrote %s, gathered from %d ranks\n", output ? output : "(nothing)", size);
            }
        }
        sslat_container_free(whole);
        for (int r = 0; r < size; r++) sslat_container_free(parts[r]);
        free(parts);
    }
    MPI_Bcast(&final, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(lengths);
    free(codes);
    free(messages);
    free(offsets);
    free(all);
    sslat_free(bytes);
    MPI_Finalize();
    return final;
}
