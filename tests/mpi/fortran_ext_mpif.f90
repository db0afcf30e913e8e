! Self-checking test of the Fortran bindings of topologies, neighbourhood
! collectives, datatype constructors and queries, external32 and matched
! probes (see fortran_ext.inc) with include 'mpif.h'. 2..8 ranks.
program fortran_ext_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_ext_mpif'
  include 'fortran_ext.inc'
end program fortran_ext_mpif
