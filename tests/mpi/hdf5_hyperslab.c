/* Parallel HDF5 over MPI-IO: every rank writes its hyperslab of shared
 * datasets collectively (H5FD_MPIO_COLLECTIVE), the file is closed and
 * reopened, and every rank reads the next rank's hyperslab back and checks
 * it value by value. Three datasets: a contiguous one where rank r owns
 * rows [r*ROWS, (r+1)*ROWS), a contiguous one where rank r owns every
 * size-th column starting at r (a strided, non-contiguous selection), and
 * a chunked one with rank r's rows; plus a file attribute written by all.
 *
 * Usage: hdf5_hyperslab FILE. The file is left in place: the test suite
 * compares its h5dump with the one of the native run's file. Every rank
 * makes the same number of checks; works for any number of ranks. Build
 * with h5pcc (Debian's libhdf5-mpich-dev). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

#include "check.h"

enum { ROWS = 16, COLS = 24, CHUNK_ROWS = 8 };

/* The value element (i, j) of dataset `d` holds, whoever wrote it. */
static int value(int d, hsize_t i, hsize_t j) { return d * 1000000 + (int)i * 1000 + (int)j; }

/* A transfer property list asking for collective MPI-IO. */
static hid_t collective(void) {
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    return dxpl;
}

/* A file access property list for the MPI-IO driver on MPI_COMM_WORLD. */
static hid_t mpio_access(void) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    return fapl;
}

/* Rank r's part of dataset `d` (dims rows x cols): rows [r*ROWS,
 * (r+1)*ROWS) for datasets 0 and 2, columns r, r+size, ... for dataset 1.
 * Selects it in `space` and returns its element count. */
static hsize_t select_part(int d, int r, hid_t space) {
    if (d == 1) {
        hsize_t start[2] = {0, (hsize_t)r}, stride[2] = {(hsize_t)size * ROWS, (hsize_t)size};
        hsize_t count[2] = {1, COLS}, block[2] = {(hsize_t)size * ROWS, 1};
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, block);
        return (hsize_t)size * ROWS * COLS;
    }
    hsize_t start[2] = {(hsize_t)r * ROWS, 0}, count[2] = {ROWS, COLS};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    return ROWS * COLS;
}

/* The dataset coordinates of element k of rank r's part, in the order
 * H5Dread/H5Dwrite walk a hyperslab (row-major over the dataset). */
static void coordinates(int d, int r, hsize_t k, hsize_t *i, hsize_t *j) {
    if (d == 1) {
        *i = k / COLS;
        *j = (hsize_t)r + (k % COLS) * (hsize_t)size;
    } else {
        *i = (hsize_t)r * ROWS + k / COLS;
        *j = k % COLS;
    }
}

static const char *names[3] = {"rows", "columns", "chunked_rows"};

static void write_file(const char *file) {
    hid_t fapl = mpio_access();
    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "H5Fcreate %s", file);
    H5Pclose(fapl);
    hsize_t dims[2] = {(hsize_t)size * ROWS, (hsize_t)size * COLS};
    hid_t dxpl = collective();
    for (int d = 0; d < 3; d++) {
        hsize_t ddims[2] = {dims[0], d == 1 ? dims[1] : COLS};
        hid_t space = H5Screate_simple(2, ddims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (d == 2) {
            hsize_t chunk[2] = {CHUNK_ROWS, COLS};
            H5Pset_chunk(dcpl, 2, chunk);
        }
        hid_t ds = H5Dcreate2(f, names[d], H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(ds >= 0, "H5Dcreate2 %s", names[d]);
        hsize_t n = select_part(d, rank, space);
        int *buf = malloc(n * sizeof *buf);
        for (hsize_t k = 0; k < n; k++) {
            hsize_t i, j;
            coordinates(d, rank, k, &i, &j);
            buf[k] = value(d, i, j);
        }
        hid_t mem = H5Screate_simple(1, &n, NULL);
        herr_t rc = H5Dwrite(ds, H5T_NATIVE_INT, mem, space, dxpl, buf);
        CHECK(rc >= 0, "collective H5Dwrite of %s", names[d]);
        free(buf);
        H5Sclose(mem);
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(space);
    }
    hid_t ascalar = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(f, "ranks", H5T_STD_I32LE, ascalar, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Awrite(a, H5T_NATIVE_INT, &size) >= 0, "H5Awrite");
    H5Aclose(a);
    H5Sclose(ascalar);
    H5Pclose(dxpl);
    CHECK(H5Fclose(f) >= 0, "H5Fclose after writing");
}

static void read_file(const char *file) {
    hid_t fapl = mpio_access();
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "H5Fopen %s", file);
    H5Pclose(fapl);
    hid_t dxpl = collective();
    int other = (rank + 1) % size;
    for (int d = 0; d < 3; d++) {
        hid_t ds = H5Dopen2(f, names[d], H5P_DEFAULT);
        hid_t space = H5Dget_space(ds);
        hsize_t n = select_part(d, other, space);
        int *buf = malloc(n * sizeof *buf);
        hid_t mem = H5Screate_simple(1, &n, NULL);
        herr_t rc = H5Dread(ds, H5T_NATIVE_INT, mem, space, dxpl, buf);
        CHECK(rc >= 0, "collective H5Dread of %s", names[d]);
        hsize_t wrong = 0, first = 0;
        for (hsize_t k = 0; k < n; k++) {
            hsize_t i, j;
            coordinates(d, other, k, &i, &j);
            if (buf[k] != value(d, i, j) && wrong++ == 0) first = k;
        }
        CHECK(wrong == 0, "%s: %llu of rank %d's %llu values wrong, first at %llu: %d", names[d],
              (unsigned long long)wrong, other, (unsigned long long)n, (unsigned long long)first,
              buf[first]);
        free(buf);
        H5Sclose(mem);
        H5Sclose(space);
        H5Dclose(ds);
    }
    int ranks = -1;
    hid_t a = H5Aopen(f, "ranks", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT, &ranks);
    CHECK(ranks == size, "attribute ranks = %d", ranks);
    H5Aclose(a);
    H5Pclose(dxpl);
    CHECK(H5Fclose(f) >= 0, "H5Fclose after reading");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: hdf5_hyperslab FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    write_file(argv[1]);
    section("write");
    read_file(argv[1]);
    section("read back");
    int rc = finish_checks("hdf5_hyperslab");
    MPI_Finalize();
    return rc;
}
