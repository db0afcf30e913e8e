! Self-checking test of the Fortran bindings with the mpi module (use mpi),
! started by MPI_INIT_THREAD: the checks are in fortran_suite.inc (shared
! with fortran_mpif.f90). Needs at least 2 ranks.
program fortran_use_mpi
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_use_mpi'
  integer, parameter :: init_level = MPI_THREAD_FUNNELED
  include 'fortran_suite.inc'
end program fortran_use_mpi

include 'fortran_callbacks.inc'
