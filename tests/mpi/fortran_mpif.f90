! Self-checking test of the Fortran bindings with include 'mpif.h': the
! checks are in fortran_suite.inc (shared with fortran_use_mpi.f90). Needs
! at least 2 ranks.
program fortran_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_mpif'
  integer, parameter :: init_level = -1
  ! mpif.h leaves these two functions' type implicit.
  integer(kind=MPI_ADDRESS_KIND), external :: MPI_AINT_ADD, MPI_AINT_DIFF
  include 'fortran_suite.inc'
end program fortran_mpif

include 'fortran_callbacks.inc'
