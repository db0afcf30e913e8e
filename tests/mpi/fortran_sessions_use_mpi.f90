! Self-checking test of the Fortran bindings of MPI 4.0's Sessions model
! (see fortran_sessions.inc) with the mpi module. 2..8 ranks.
program fortran_sessions_use_mpi
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_sessions_use_mpi'
  include 'fortran_sessions.inc'
end program fortran_sessions_use_mpi
