/* Status conversions between C, Fortran and Fortran 2008
 * (MPI_Status_c2f, MPI_Status_f2c, MPI_Status_c2f08, MPI_Status_f082c):
 * source, tag, error, element counts above 2^31 and the cancelled flag
 * survive every round trip; converting MPI_STATUS_IGNORE or
 * MPI_F_STATUS_IGNORE fails with class MPI_ERR_OTHER (MPICH's Fortran 2008
 * pair does not check its sentinels, so neither is tried there). MPICH ships the Fortran 2008 pair in its Fortran
 * library, so the program looks them up there (libmpichfort.so.12, which
 * mpinetsim also provides). Self-checking; the same output natively and
 * through mpinetsim. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static int rank;
#include "check.h"

typedef int (*c2f08_fn)(const MPI_Status *, MPI_F08_status *);
typedef int (*f082c_fn)(const MPI_F08_status *, MPI_Status *);

static int error_class(int code) {
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* A received status: every field through Fortran and back. */
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int data[7] = {1, 2, 3, 4, 5, 6, 7}, got[7];
    MPI_Status st, back;
    MPI_Sendrecv(data, 7, MPI_INT, to, 100 + rank, got, 7, MPI_INT, from, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &st);
    MPI_Fint f[MPI_F_STATUS_SIZE];
    CHECK(MPI_Status_c2f(&st, f) == MPI_SUCCESS, "c2f");
    CHECK(f[MPI_F_SOURCE] == from, "Fortran source %d", (int)f[MPI_F_SOURCE]);
    CHECK(f[MPI_F_TAG] == 100 + from, "Fortran tag %d", (int)f[MPI_F_TAG]);
    CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "f2c");
    int count = -1;
    MPI_Get_count(&back, MPI_INT, &count);
    CHECK(count == 7, "count after the round trip %d", count);
    CHECK(back.MPI_SOURCE == from && back.MPI_TAG == 100 + from, "source/tag back");

    /* Fields changed on the Fortran side arrive in C. */
    f[MPI_F_TAG] = 4242;
    f[MPI_F_ERROR] = MPI_ERR_TRUNCATE;
    MPI_Status_f2c(f, &back);
    CHECK(back.MPI_TAG == 4242 && back.MPI_ERROR == MPI_ERR_TRUNCATE, "Fortran edits");

    /* More than 2^31 elements and the cancelled flag. */
    MPI_Count big = ((MPI_Count)3 << 31) + 5 + rank, elements = -1;
    MPI_Status_set_elements_x(&st, MPI_BYTE, big);
    MPI_Status_set_cancelled(&st, 1);
    MPI_Status_c2f(&st, f);
    MPI_Status_f2c(f, &back);
    MPI_Get_elements_x(&back, MPI_BYTE, &elements);
    CHECK(elements == big, "elements %lld", (long long)elements);
    int flag = 0;
    MPI_Test_cancelled(&back, &flag);
    CHECK(flag == 1, "cancelled flag lost");

    /* Fortran 2008. */
    void *fort = dlopen("libmpichfort.so.12", RTLD_NOW | RTLD_GLOBAL);
    CHECK(fort != NULL, "cannot load libmpichfort.so.12: %s", dlerror());
    if (fort) {
        c2f08_fn c2f08 = (c2f08_fn)dlsym(fort, "MPI_Status_c2f08");
        f082c_fn f082c = (f082c_fn)dlsym(fort, "MPI_Status_f082c");
        CHECK(c2f08 && f082c, "Fortran 2008 conversions missing");
        if (c2f08 && f082c) {
            MPI_F08_status f08;
            MPI_Status_set_cancelled(&st, 0);
            CHECK(c2f08(&st, &f08) == MPI_SUCCESS, "c2f08");
            CHECK(f08.MPI_SOURCE == from && f08.MPI_TAG == 100 + from, "f08 fields");
            f08.MPI_TAG = 77;
            CHECK(f082c(&f08, &back) == MPI_SUCCESS, "f082c");
            elements = -1;
            MPI_Get_elements_x(&back, MPI_BYTE, &elements);
            MPI_Test_cancelled(&back, &flag);
            CHECK(back.MPI_TAG == 77 && elements == big && flag == 0, "f08 round trip");
        }
    }

    /* Sentinels cannot be converted. */
    CHECK(error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f)) == MPI_ERR_OTHER,
          "c2f of MPI_STATUS_IGNORE");
    CHECK(error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back)) == MPI_ERR_OTHER,
          "f2c of MPI_F_STATUS_IGNORE");

    section("status conversions");
    int rc = finish_checks("status_convert");
    MPI_Finalize();
    return rc;
}
