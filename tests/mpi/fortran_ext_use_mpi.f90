! Self-checking test of the Fortran bindings of topologies, neighbourhood
! collectives, datatype constructors and queries, external32 and matched
! probes (see fortran_ext.inc) with the mpi module. 2..8 ranks.
program fortran_ext_use_mpi
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_ext_use_mpi'
  include 'fortran_ext.inc'
end program fortran_ext_use_mpi
