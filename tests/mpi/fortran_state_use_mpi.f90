! Self-checking test of the Fortran bindings of MPI's object state (see
! fortran_state.inc) with the mpi module, which adds MPI_SIZEOF. Needs at
! least 2 ranks.
program fortran_state_use_mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi
  implicit none
  character(len=*), parameter :: suite = 'fortran_state_use_mpi'
  include 'fortran_state.inc'
end program fortran_state_use_mpi

! MPI_SIZEOF of every type the mpi module has a specific for, scalar and
! array, against MPI_TYPE_SIZE of the matching datatype.
subroutine extra_checks(rank, checks, fails)
  use mpi
  implicit none
  integer :: rank, checks, fails
  real :: r, rv(2)
  double precision :: d, dv(2)
  complex :: z, zv(2)
  integer :: i, iv(2), size, expect, ierr
  integer(kind=1) :: i1, i1v(2)
  integer(kind=2) :: i2, i2v(2)
  integer(kind=8) :: i8, i8v(2)
  logical :: l, lv(2)
  character :: ch, chv(2)
  call one(r, MPI_REAL)
  call MPI_SIZEOF(rv, size, ierr)
  call same(size, MPI_REAL)
  call MPI_SIZEOF(d, size, ierr)
  call same(size, MPI_DOUBLE_PRECISION)
  call MPI_SIZEOF(dv, size, ierr)
  call same(size, MPI_DOUBLE_PRECISION)
  call MPI_SIZEOF(z, size, ierr)
  call same(size, MPI_COMPLEX)
  call MPI_SIZEOF(zv, size, ierr)
  call same(size, MPI_COMPLEX)
  call MPI_SIZEOF(i, size, ierr)
  call same(size, MPI_INTEGER)
  call MPI_SIZEOF(iv, size, ierr)
  call same(size, MPI_INTEGER)
  call MPI_SIZEOF(i1, size, ierr)
  call same(size, MPI_INTEGER1)
  call MPI_SIZEOF(i1v, size, ierr)
  call same(size, MPI_INTEGER1)
  call MPI_SIZEOF(i2, size, ierr)
  call same(size, MPI_INTEGER2)
  call MPI_SIZEOF(i2v, size, ierr)
  call same(size, MPI_INTEGER2)
  call MPI_SIZEOF(i8, size, ierr)
  call same(size, MPI_INTEGER8)
  call MPI_SIZEOF(i8v, size, ierr)
  call same(size, MPI_INTEGER8)
  call MPI_SIZEOF(l, size, ierr)
  call same(size, MPI_LOGICAL)
  call MPI_SIZEOF(lv, size, ierr)
  call same(size, MPI_LOGICAL)
  call MPI_SIZEOF(ch, size, ierr)
  call same(size, MPI_CHARACTER)
  call MPI_SIZEOF(chv, size, ierr)
  call same(size, MPI_CHARACTER)
contains
  subroutine one(x, datatype)
    real :: x
    integer :: datatype
    call MPI_SIZEOF(x, size, ierr)
    call same(size, datatype)
  end subroutine one
  subroutine same(got, datatype)
    integer :: got, datatype
    call MPI_TYPE_SIZE(datatype, expect, ierr)
    checks = checks + 1
    if (got /= expect .or. ierr /= MPI_SUCCESS) then
       fails = fails + 1
       write (0, '("rank ", i0, ": MPI_SIZEOF gave ", i0, ", not ", i0)') rank, got, expect
    end if
  end subroutine same
end subroutine extra_checks

include 'fortran_state_callbacks.inc'
