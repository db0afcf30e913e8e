! Self-checking test of the Fortran bindings of nonblocking collectives,
! intercommunicators and MPI 3's communicator routines (see
! fortran_coll.inc) with include 'mpif.h'. Needs at least 2 ranks.
program fortran_coll_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_coll_mpif'
  include 'fortran_coll.inc'
end program fortran_coll_mpif
