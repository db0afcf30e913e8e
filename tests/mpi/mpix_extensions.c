/* MPICH's MPIX_ extensions a program may call where no process fails:
 * MPIX_Comm_agree ANDs every rank's flag (each rank clears its own bit of
 * an all-ones word, so the agreed value has the low `size` bits clear);
 * MPIX_Comm_shrink gives a congruent communicator that works (a
 * reduction over it); MPIX_Comm_failure_ack succeeds and
 * MPIX_Comm_failure_get_acked gives an empty group; the GPU queries say
 * device buffers are not supported; bad arguments get MPI_ERR_ARG. Every
 * rank makes the same checks; the output is compared with native MPICH. */
#include <mpi.h>
#include <stdio.h>

static int rank, size;

#include "check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int flag = ~(1 << rank);
    int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    int expect = ~((1 << size) - 1);
    CHECK(rc == MPI_SUCCESS && flag == expect, "agree: rc %d, flag %#x, want %#x", rc, flag, expect);
    flag = rank == 0 ? 0 : 1;
    MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(flag == 0, "agree on 0 at rank 0: %d", flag);

    MPI_Comm shrunk;
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk);
    int cmp = -1, ssize = -1, sum = -1;
    if (rc == MPI_SUCCESS) {
        MPI_Comm_compare(MPI_COMM_WORLD, shrunk, &cmp);
        MPI_Comm_size(shrunk, &ssize);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk);
        MPI_Comm_free(&shrunk);
    }
    CHECK(rc == MPI_SUCCESS && cmp == MPI_CONGRUENT && ssize == size &&
              sum == size * (size - 1) / 2,
          "shrink: rc %d, compare %d, size %d, sum %d", rc, cmp, ssize, sum);

    rc = MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "failure_ack: %d", rc);
    MPI_Group failed;
    int gsize = -1;
    rc = MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &failed);
    if (rc == MPI_SUCCESS) MPI_Group_size(failed, &gsize);
    CHECK(rc == MPI_SUCCESS && gsize == 0, "get_acked: rc %d, %d failed", rc, gsize);

    int supported = -1;
    rc = MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported);
    CHECK(rc == MPI_SUCCESS && supported == 0, "GPU CUDA: rc %d, %d", rc, supported);
    rc = MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &supported);
    CHECK(rc == MPI_SUCCESS && supported == 0, "GPU ZE: rc %d, %d", rc, supported);
    CHECK(MPIX_Query_cuda_support() == 0 && MPIX_Query_hip_support() == 0 &&
              MPIX_Query_ze_support() == 0,
          "device queries");
    int cls = -1;
    rc = MPIX_GPU_query_support(7, &supported);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "GPU kind 7: class %d", cls);
    return finish_checks("mpix_extensions") + MPI_Finalize();
}
