! Self-checking test of the Fortran bindings of MPI-IO (see
! fortran_io.inc) with the mpi module. 1..8 ranks.
program fortran_io_use_mpi
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_io_use_mpi'
  include 'fortran_io.inc'
end program fortran_io_use_mpi
