! `use mpi_f08` through mpinetsim: array sections where Debian's MPICH
! 4.0.2 cannot be the reference, so the reference here is the arithmetic:
! blocking reductions between non-contiguous sections (the shim copies
! them through contiguous temporaries; MPICH refuses MPI_SUM on the
! hvector it builds for a section) and external32 packing from and into
! sections (MPICH packs and unpacks the first elements instead). Every
! rank runs the same 11 checks; rank 0 prints the total over all ranks.
program f08_sections
  use mpi_f08
  implicit none
  integer :: rank, nprocs, checks, failures, i, total
  integer :: a(10), b(10), c(5), m(3, 4)
  integer :: sum_ranks
  integer(kind=MPI_ADDRESS_KIND) :: pos, psize
  integer(kind=1) :: packed(16)

  checks = 0
  failures = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  a = [(100 * rank + i, i = 1, 10)]
  ! The sum over ranks of 100 * rank + i.
  sum_ranks = 100 * nprocs * (nprocs - 1) / 2

  b = a
  call MPI_Allreduce(MPI_IN_PLACE, b(1:10:2), 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(b(1:9:2) == [(sum_ranks + nprocs * i, i = 1, 9, 2)]), 'in place into a section')
  call check(all(b(2:10:2) == a(2:10:2)), 'gaps of the in-place section')

  b = -1
  call MPI_Allreduce(a, b(1:10:2), 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(b(1:9:2) == [(sum_ranks + nprocs * i, i = 1, 5)]) .and. all(b(2:10:2) == -1), &
             'contiguous into a section')

  c = -1
  call MPI_Allreduce(a(2:10:2), c, 5, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(all(c == [(100 * (nprocs - 1) + i, i = 2, 10, 2)]), 'section into contiguous')

  m = -1
  call MPI_Allreduce(a(10:7:-1), m(2, :), 4, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  call check(all(m(2, :) == [10, 9, 8, 7]) .and. all(m(1, :) == -1), 'reversed section into a row')

  b = -1
  call MPI_Reduce(a(1:3), b(1:6:2), 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    call check(all(b(1:5:2) == [(sum_ranks + nprocs * i, i = 1, 3)]), 'reduce into a section')
  else
    call check(all(b == -1), 'reduce leaves a non-root section alone')
  end if

  b = a
  call MPI_Reduce_local(a(1:10:2), b(2:10:2), 5, MPI_INTEGER, MPI_SUM)
  call check(all(b(2:10:2) == 2 * 100 * rank + [(2 * i - 1, i = 1, 5)] + [(2 * i, i = 1, 5)]), &
             'reduce_local between sections')

  b = a
  call MPI_Scan(MPI_IN_PLACE, b(1:4:3), 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(b(1) == 100 * rank * (rank + 1) / 2 + (rank + 1) &
             .and. b(4) == 100 * rank * (rank + 1) / 2 + 4 * (rank + 1), 'scan in place into a section')
  call check(b(2) == a(2) .and. b(3) == a(3), 'scan section gaps')

  psize = 16
  pos = 0
  call MPI_Pack_external('external32', a(1:10:3), 4, MPI_INTEGER, packed, psize, pos)
  ! Big-endian 4-byte integers: the low byte of a(7) is the 12th byte.
  call check(pos == 16 .and. iand(int(packed(12)), 255) == mod(100 * rank + 7, 256), &
             'pack_external of a section')
  b = -1
  pos = 0
  call MPI_Unpack_external('external32', packed, psize, pos, b(2:8:2), 4, MPI_INTEGER)
  call check(pos == 16 .and. all(b(2:8:2) == 100 * rank + [1, 4, 7, 10]) .and. all(b(1:9:2) == -1), &
             'unpack_external into a section')

  call MPI_Allreduce(checks - failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_sections: ', total, ' checks passed'
  call MPI_Finalize()

contains

  include 'check_f08.inc'
end program f08_sections
