! Self-checking test of the Fortran port routines (see fortran_ports.inc)
! with use mpi. An even number of ranks.
program fortran_ports_use_mpi
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_ports_use_mpi'
  include 'fortran_ports.inc'
end program fortran_ports_use_mpi
