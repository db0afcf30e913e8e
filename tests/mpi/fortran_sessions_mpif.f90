! Self-checking test of the Fortran bindings of MPI 4.0's Sessions model
! (see fortran_sessions.inc) with include 'mpif.h'. 2..8 ranks.
program fortran_sessions_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_sessions_mpif'
  include 'fortran_sessions.inc'
end program fortran_sessions_mpif
