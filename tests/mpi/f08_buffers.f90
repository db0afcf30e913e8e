! `use mpi_f08` through mpinetsim: the routines with choice buffers (the
! _f08ts routines, buffers passed as gfortran array descriptors). Whole
! arrays, scalars and strided sections (sent from and received into),
! nonblocking requests, collectives with MPI_IN_PLACE, a derived
! datatype, one-sided Put/Get in a fence epoch and MPI-IO. Every expected
! value is computed from the ranks. Prints one line per failed check and,
! on rank 0, the number of checks.
program f08_buffers
  use mpi_f08
  implicit none
  integer :: rank, nprocs, checks, failures, i, n, right, left, s, t, ierr
  ! ASYNCHRONOUS: nonblocking and persistent operations and windows use them
  ! between calls that do not name them.
  integer, asynchronous :: a(10), b(10), c(4), m(3, 4), m2(3, 4), w(64), x(4), y(4)
  double precision :: d(6), e(3)
  integer, allocatable :: g(:), cnts(:), displs(:), sv(:), rv(:)
  type(MPI_Status) :: status
  type(MPI_Request) :: reqs(2), preqs(2)
  integer :: round
  type(MPI_Datatype) :: vec
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp, pos, psize
  integer(kind=1) :: packed(16)
  integer(kind=MPI_OFFSET_KIND) :: off
  integer(kind=MPI_COUNT_KIND) :: n8
  integer(kind=MPI_COUNT_KIND), allocatable :: cnts8(:)
  integer(kind=MPI_ADDRESS_KIND), allocatable :: displs8(:)
  character(len=256) :: fname
  interface
    integer(c_int) function getpid() bind(C, name='getpid')
      use iso_c_binding, only: c_int
    end function getpid
  end interface

  checks = 0
  failures = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  a = [(100 * rank + i, i = 1, 10)]
  m = reshape([(10 * rank + i, i = 1, 12)], [3, 4])

  ! Rank 0 to rank 1: whole arrays, a scalar, sections both ways.
  if (rank == 0) then
    call MPI_Send(a, 10, MPI_INTEGER, 1, 1, MPI_COMM_WORLD)
    s = 42
    call MPI_Send(s, 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
    call MPI_Send(a(1:10:2), 5, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
    call MPI_Send(m(2, :), 4, MPI_INTEGER, 1, 4, MPI_COMM_WORLD)
    call MPI_Send(a(1:4), 4, MPI_INTEGER, 1, 5, MPI_COMM_WORLD)
    call MPI_Send(m(2:3, 1:4:3), 4, MPI_INTEGER, 1, 6, MPI_COMM_WORLD)
    call MPI_Send(a, 3, MPI_INTEGER, 1, 7, MPI_COMM_WORLD)
    d = [(1.5d0 * i, i = 1, 6)]
    call MPI_Send(d(2:6:2), 3, MPI_DOUBLE_PRECISION, 1, 8, MPI_COMM_WORLD)
    call MPI_Send(d(6:1:-2), 3, MPI_DOUBLE_PRECISION, 1, 9, MPI_COMM_WORLD)
  else if (rank == 1) then
    b = -1
    call MPI_Recv(b, 10, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, status)
    call check(all(b == [(i, i = 1, 10)]), 'whole array')
    call check(status%MPI_SOURCE == 0 .and. status%MPI_TAG == 1, 'status')
    call MPI_Get_count(status, MPI_INTEGER, n)
    call check(n == 10, 'count of the whole array')
    t = 0
    call MPI_Recv(t, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(t == 42 .and. ierr == MPI_SUCCESS, 'scalar')
    b = -1
    call MPI_Recv(b, 5, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, status)
    call check(all(b(1:5) == [1, 3, 5, 7, 9]) .and. b(6) == -1, 'strided section sent')
    b = -1
    call MPI_Recv(b(2:8:2), 4, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, status)
    call check(all(b(2:8:2) == [2, 5, 8, 11]), 'row sent, strided section received')
    call check(all(b(1:9:2) == -1) .and. b(10) == -1, 'gaps of the section untouched')
    call MPI_Get_count(status, MPI_INTEGER, n)
    call check(n == 4, 'count received into a section')
    m2 = -1
    call MPI_Recv(m2(3, :), 4, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, status)
    call check(all(m2(3, :) == [1, 2, 3, 4]) .and. all(m2(1:2, :) == -1), 'row received')
    c = -1
    call MPI_Recv(c, 4, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, status)
    call check(all(c == [2, 3, 11, 12]), 'two-dimensional section sent')
    b = -1
    call MPI_Recv(b(1:10:2), 3, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, status)
    call check(all(b(1:5:2) == [1, 2, 3]) .and. all(b(7:9:2) == -1), 'partial section')
    e = 0
    call MPI_Recv(e, 3, MPI_DOUBLE_PRECISION, 0, 8, MPI_COMM_WORLD, status)
    call check(all(e == [3d0, 6d0, 9d0]), 'double precision section')
    e = 0
    call MPI_Recv(e, 3, MPI_DOUBLE_PRECISION, 0, 9, MPI_COMM_WORLD, status)
    call check(all(e == [9d0, 6d0, 3d0]), 'section with a negative stride')
  end if

  ! A ring of nonblocking sections: a(1:10:3) to the right, received into
  ! a row of m2 (the section's datatype is freed while the receive pends).
  m2 = -1
  call MPI_Irecv(m2(1, :), 4, MPI_INTEGER, left, 10, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(a(1:10:3), 4, MPI_INTEGER, right, 10, MPI_COMM_WORLD, reqs(1))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(all(m2(1, :) == 100 * left + [1, 4, 7, 10]), 'nonblocking ring of sections')
  call check(all(m2(2:3, :) == -1), 'nonblocking section gaps')
  call check(reqs(1) == MPI_REQUEST_NULL, 'request freed')

  ! Persistent requests on sections (one reversed), started twice: their
  ! section datatypes were freed when MPI_Send_init/MPI_Recv_init returned.
  call MPI_Recv_init(b(10:1:-3), 4, MPI_INTEGER, left, 11, MPI_COMM_WORLD, preqs(2))
  call MPI_Send_init(c, 4, MPI_INTEGER, right, 11, MPI_COMM_WORLD, preqs(1))
  do round = 1, 2
    c = 1000 * round + 10 * rank + [1, 2, 3, 4]
    b = -1
    call MPI_Startall(2, preqs)
    call MPI_Waitall(2, preqs, MPI_STATUSES_IGNORE)
    call check(all(b(10:1:-3) == 1000 * round + 10 * left + [1, 2, 3, 4]) &
               .and. count(b == -1) == 6, 'persistent requests on sections')
  end do
  call MPI_Request_free(preqs(1))
  call MPI_Request_free(preqs(2))

  ! Broadcasts: a section and a scalar.
  b = -1
  if (rank == 0) b = [(i * i, i = 1, 10)]
  call MPI_Bcast(b(1:10:2), 5, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    call check(all(b == [(i * i, i = 1, 10)]), 'bcast root')
  else
    call check(all(b(1:9:2) == [1, 9, 25, 49, 81]) .and. all(b(2:10:2) == -1), 'bcast section')
  end if
  s = 0
  if (rank == 0) s = 7
  call MPI_Bcast(s, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(s == 7, 'bcast scalar')
  m2 = -1
  if (rank == nprocs - 1) m2(2, :) = [4, 3, 2, 1]
  call MPI_Ibcast(m2(2, :), 4, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Wait(reqs(1), status)
  call check(all(m2(2, :) == [4, 3, 2, 1]) .and. all(m2(1, :) == -1) .and. all(m2(3, :) == -1), &
             'ibcast of a row')

  ! Reductions, MPI_IN_PLACE among them. (Not into a section: Debian's
  ! MPICH refuses MPI_SUM on the hvector it builds for one.)
  s = rank + 1
  call MPI_Allreduce(s, t, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(t == nprocs * (nprocs + 1) / 2, 'allreduce scalar')
  b = a
  call MPI_Allreduce(MPI_IN_PLACE, b, 10, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(all(b == [(100 * (nprocs - 1) + i, i = 1, 10)]), 'allreduce in place')
  e = [dble(rank), 1d0, -dble(rank)]
  d = 0
  call MPI_Reduce(e, d, 3, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(d(1:3) == [dble(nprocs * (nprocs - 1) / 2), dble(nprocs), &
                                              -dble(nprocs * (nprocs - 1) / 2)]), 'reduce')
  c = rank
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, c, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
    call check(all(c == nprocs * (nprocs - 1) / 2), 'reduce in place')
  else
    call MPI_Reduce(c, x, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  end if

  ! Gather and scatter, fixed and varying counts.
  allocate(g(3 * nprocs), cnts(nprocs), displs(nprocs), sv(nprocs), rv(nprocs))
  g = -1
  call MPI_Gather(a(1:6:3), 2, MPI_INTEGER, g, 2, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(g(1:2 * nprocs) == [(100 * (i / 2) + 1 + 3 * mod(i, 2), i = 0, 2 * nprocs - 1)]), &
                            'gather of sections')
  c = -1
  call MPI_Scatter(g, 2, MPI_INTEGER, c(1:4:2), 2, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(c == [100 * rank + 1, -1, 100 * rank + 4, -1]), 'scatter into a section')
  cnts = [(i, i = 1, nprocs)]
  displs = [(i * (i - 1) / 2, i = 1, nprocs)]
  g = -1
  call MPI_Gatherv(a, rank + 1, MPI_INTEGER, g, cnts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(g(1:nprocs * (nprocs + 1) / 2) == &
                                [((100 * i + n, n = 1, i + 1), i = 0, nprocs - 1)]), 'gatherv')
  b = -1
  call MPI_Scatterv(g, cnts, displs, MPI_INTEGER, b, rank + 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(b(1:rank + 1) == [(100 * rank + n, n = 1, rank + 1)]) .and. b(rank + 2) == -1, &
             'scatterv')
  sv = [(100 * rank + i, i = 0, nprocs - 1)]
  rv = -1
  call MPI_Alltoall(sv, 1, MPI_INTEGER, rv, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(rv == [(100 * i + rank, i = 0, nprocs - 1)]), 'alltoall')

  ! Large counts (the _f08ts_large routines): a section around the ring,
  ! an in-place reduction, a gatherv with 8-byte counts and displacements.
  n8 = 4
  c = -1
  call MPI_Sendrecv(a(10:1:-3), n8, MPI_INTEGER, right, 30, c, n8, MPI_INTEGER, left, 30, &
                    MPI_COMM_WORLD, status)
  call check(all(c == 100 * left + [10, 7, 4, 1]), 'large-count sendrecv of a section')
  call MPI_Get_count(status, MPI_INTEGER, n8)
  call check(n8 == 4, 'large count received')
  b = a
  n8 = 10
  call MPI_Allreduce(MPI_IN_PLACE, b, n8, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
  call check(all(b == [(i, i = 1, 10)]), 'large-count allreduce in place')
  allocate(cnts8(nprocs), displs8(nprocs))
  cnts8 = [(2, i = 1, nprocs)]
  displs8 = [(2 * (nprocs - i), i = 1, nprocs)]
  g = -1
  n8 = 2
  call MPI_Gatherv(a(2:4:2), n8, MPI_INTEGER, g, cnts8, displs8, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(g(1:2 * nprocs) == [((100 * (nprocs - 1 - i / 2) + 2 + 2 * mod(i, 2)), &
                                                      i = 0, 2 * nprocs - 1)]), 'large-count gatherv')

  ! external32 packing of whole arrays (sections: f08_sections.f90;
  ! Debian's MPICH packs and unpacks their first elements instead).
  psize = 16
  pos = 0
  call MPI_Pack_external('external32', a(4:7), 4, MPI_INTEGER, packed, psize, pos)
  call check(pos == 16 .and. packed(4) == int(mod(100 * rank + 4, 256) - merge(256, 0, mod(100 * rank + 4, 256) > 127), 1), &
             'pack_external (big-endian)')
  c = -1
  pos = 0
  call MPI_Unpack_external('external32', packed, psize, pos, c, 4, MPI_INTEGER)
  call check(pos == 16 .and. all(c == 100 * rank + [4, 5, 6, 7]), 'unpack_external')

  ! A derived datatype: every third element.
  call MPI_Type_vector(4, 1, 3, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  c = -1
  call MPI_Sendrecv(a, 1, vec, right, 20, c, 4, MPI_INTEGER, left, 20, MPI_COMM_WORLD, status)
  call check(all(c == 100 * left + [1, 4, 7, 10]), 'vector datatype')
  call MPI_Type_free(vec)

  ! One-sided: Put from a section, Get into a section, in fence epochs.
  w = [(1000 * rank + i, i = 1, 64)]
  winsize = 4 * 64
  call MPI_Win_create(w, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  x = [10 * rank + 1, 10 * rank + 2, 10 * rank + 3, 10 * rank + 4]
  call MPI_Win_fence(0, win)
  disp = 2 * rank
  call MPI_Put(x(1:4:2), 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(w(2 * left + 1) == 10 * left + 1 .and. w(2 * left + 2) == 10 * left + 3, 'put')
  y = -7
  call MPI_Get(y(2:4:2), 2, MPI_INTEGER, right, disp, 2, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(all(y == [-7, 10 * rank + 1, -7, 10 * rank + 3]), 'get into a section')
  call MPI_Win_free(win)

  ! MPI-IO: each rank writes a section at its offset, reads its right neighbour's.
  if (rank == 0) write (fname, '("/tmp/f08_buffers.", i0)') getpid()
  call MPI_Bcast(fname, len(fname), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'file open')
  off = 16 * rank
  call MPI_File_write_at(fh, off, a(1:8:2), 4, MPI_INTEGER, status)
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 4, 'file write count')
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  b = -1
  off = 16 * right
  call MPI_File_read_at(fh, off, b(1:8:2), 4, MPI_INTEGER, status)
  call check(all(b(1:7:2) == 100 * right + [1, 3, 5, 7]) .and. all(b(2:8:2) == -1), 'file read')
  call MPI_File_close(fh)
  call check(fh == MPI_FILE_NULL, 'file closed')
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_buffers: ', checks, ' checks passed'
  call MPI_Finalize()

contains

  include 'check_f08.inc'
end program f08_buffers
