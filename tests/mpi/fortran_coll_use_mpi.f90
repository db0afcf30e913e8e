! Self-checking test of the Fortran bindings of nonblocking collectives,
! intercommunicators and MPI 3's communicator routines (see
! fortran_coll.inc) with the mpi module. Needs at least 2 ranks.
program fortran_coll_use_mpi
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_coll_use_mpi'
  include 'fortran_coll.inc'
end program fortran_coll_use_mpi
