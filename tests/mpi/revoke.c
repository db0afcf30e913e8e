/* MPIX_Comm_revoke where no process fails: the last rank revokes a
 * duplicate of the world while the others are in (or about to enter) a
 * barrier on it; every rank's barrier and a later receive on it fail with
 * MPIX_ERR_REVOKED; MPIX_Comm_agree and MPIX_Comm_shrink still work on
 * it, and the shrunk communicator has every rank. 5 checks per rank. */
#include <stdlib.h>
#include <string.h>
static int rank;
#include "check.h"

int main(int argc, char **argv) {
    int size, rc, class, x = 0, flag = 1;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Comm dup, shrunk;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rank == size - 1) MPIX_Comm_revoke(dup);
    rc = MPI_Barrier(dup);
    MPI_Error_class(rc, &class);
    CHECK(class == MPIX_ERR_REVOKED, "barrier gave class %d", class);
    rc = MPI_Recv(&x, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &class);
    CHECK(class == MPIX_ERR_REVOKED, "receive gave class %d", class);
    MPI_Error_string(MPIX_ERR_REVOKED, text, &len);
    CHECK(strcmp(text, "Communication object revoked") == 0, "text '%s'", text);
    flag = rank != 0;
    MPIX_Comm_agree(dup, &flag);
    CHECK(flag == 0, "agreed %d on the revoked communicator", flag);
    MPIX_Comm_shrink(dup, &shrunk);
    int n = 0, one = 1;
    MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, shrunk);
    CHECK(n == size, "the shrunk communicator counts %d", n);
    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&dup);
    int code = finish_checks("revoke");
    MPI_Finalize();
    return code;
}
