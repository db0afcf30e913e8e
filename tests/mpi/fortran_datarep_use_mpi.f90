! Self-checking test of MPI_REGISTER_DATAREP from Fortran (see
! fortran_datarep.inc) with use mpi. 1..8 ranks.
program fortran_datarep_use_mpi
  use mpi
  implicit none
  ! The mpi module does not declare MPI_CONVERSION_FN_NULL (mpif.h does).
  external :: MPI_CONVERSION_FN_NULL
  character(len=*), parameter :: suite = 'fortran_datarep_use_mpi'
  include 'fortran_datarep.inc'
end program fortran_datarep_use_mpi

include 'fortran_datarep_callbacks.inc'
