! Self-checking test of the Fortran port routines (see fortran_ports.inc)
! with include 'mpif.h'. An even number of ranks.
program fortran_ports_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: suite = 'fortran_ports_mpif'
  include 'fortran_ports.inc'
end program fortran_ports_mpif
