! Self-checking test of the Fortran bindings (include 'mpif.h', gfortran):
! environment, point-to-point with status fields, nonblocking requests,
! collectives (MPI_IN_PLACE passed by address), communicators and derived
! datatypes. Rank 0 prints "fortran_basic: N checks passed" (or how many
! failed); failures are reported on stderr. Needs at least 2 ranks.
program fortran_basic
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, i, j, n, flag, provided_len
  integer :: checks, fails, totals(2), mine(2)
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), reqs(2)
  integer :: sbuf(8), rbuf(8), v, right, left, cnt
  integer :: newcomm, subcomm, subrank, subsize, colour
  integer :: ctype, vtype
  integer, allocatable :: gathered(:), many(:), back(:)
  double precision :: t0, t1, d
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname

  checks = 0
  fails = 0

  call MPI_INITIALIZED(flag, ierr)
  call check(flag == 0 .and. ierr == MPI_SUCCESS, 'not initialized before MPI_INIT')
  call MPI_INIT(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_INIT')
  call MPI_INITIALIZED(flag, ierr)
  call check(flag /= 0, 'initialized after MPI_INIT')
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call check(rank >= 0 .and. rank < nprocs .and. nprocs >= 2, 'rank and size')
  t0 = MPI_WTIME()
  call check(MPI_WTICK() > 0d0, 'MPI_WTICK positive')

  pname = '?'
  call MPI_GET_PROCESSOR_NAME(pname, provided_len, ierr)
  call check(provided_len > 0 .and. provided_len <= MPI_MAX_PROCESSOR_NAME, 'processor name length')
  call check(len_trim(pname) == provided_len, 'processor name blank-padded')

  ! A ring: every rank sends its rank (tag 10 + rank) to the right.
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  sbuf = rank * 100 + [(i, i = 1, 8)]
  rbuf = -1
  if (mod(rank, 2) == 0) then
     call MPI_SEND(sbuf, 8, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD, ierr)
     call MPI_RECV(rbuf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
  else
     call MPI_RECV(rbuf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
     call MPI_SEND(sbuf, 8, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'send/recv ierror')
  call check(st(MPI_SOURCE) == left, 'status MPI_SOURCE')
  call check(st(MPI_TAG) == 10 + left, 'status MPI_TAG')
  call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
  call check(cnt == 8, 'MPI_GET_COUNT')
  call check(all_equal(rbuf, left * 100 + [(i, i = 1, 8)]), 'ring data')

  ! Receive with MPI_STATUS_IGNORE: nothing is written into the sentinel.
  v = -1
  call MPI_SENDRECV(rank, 1, MPI_INTEGER, right, 3, v, 1, MPI_INTEGER, left, 3, &
       MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(v == left, 'sendrecv data')
  call check(all(MPI_STATUS_IGNORE == 0), 'MPI_STATUS_IGNORE untouched')

  ! Probe, then receive the probed size.
  if (rank == 0) then
     call MPI_SEND(sbuf, 5, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
     call MPI_PROBE(0, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
     call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
     call check(cnt == 5 .and. st(MPI_TAG) == 7 .and. st(MPI_SOURCE) == 0, 'probe status')
     rbuf = 0
     call MPI_RECV(rbuf, cnt, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     call check(all_equal(rbuf(1:5), [(i, i = 1, 5)]), 'probed data')
  end if

  ! Nonblocking both ways, waitall with statuses, then with MPI_STATUSES_IGNORE.
  rbuf = -1
  call MPI_IRECV(rbuf, 4, MPI_INTEGER, left, 20, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(sbuf, 4, MPI_INTEGER, right, 20, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, sts, ierr)
  call check(ierr == MPI_SUCCESS .and. sts(MPI_SOURCE, 1) == left .and. sts(MPI_TAG, 1) == 20, &
       'waitall statuses')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  call check(all_equal(rbuf(1:4), left * 100 + [(i, i = 1, 4)]), 'irecv data')
  call MPI_IRECV(rbuf, 1, MPI_INTEGER, left, 21, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(rank, 1, MPI_INTEGER, right, 21, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(rbuf(1) == left, 'waitall MPI_STATUSES_IGNORE')
  call MPI_IRECV(v, 1, MPI_INTEGER, right, 22, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_SEND(rank, 1, MPI_INTEGER, left, 22, MPI_COMM_WORLD, ierr)
  call MPI_WAIT(reqs(1), st, ierr)
  call check(v == right .and. st(MPI_SOURCE) == right, 'wait')

  ! Collectives.
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'barrier')
  v = rank + 1
  call MPI_ALLREDUCE(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(v == nprocs * (nprocs + 1) / 2, 'allreduce MPI_IN_PLACE')
  call check(MPI_IN_PLACE == 0, 'MPI_IN_PLACE untouched')
  d = dble(rank)
  call MPI_ALLREDUCE(MPI_IN_PLACE, d, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(d == dble(nprocs - 1), 'allreduce MAX double precision')
  v = -1
  call MPI_REDUCE(rank, v, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(v == nprocs * (nprocs - 1) / 2, 'reduce')
  v = -1
  if (rank == nprocs - 1) v = 4242
  call MPI_BCAST(v, 1, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  call check(v == 4242, 'bcast')

  allocate(gathered(nprocs), many(2 * nprocs), back(2 * nprocs))
  gathered = -1
  call MPI_GATHER(rank * 3, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(all_equal(gathered, [(3 * i, i = 0, nprocs - 1)]), 'gather')
  gathered = -1
  call MPI_ALLGATHER(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all_equal(gathered, [(i, i = 0, nprocs - 1)]), 'allgather')
  many = [(1000 + i, i = 1, 2 * nprocs)]
  v = -1
  call MPI_SCATTER(many, 1, MPI_INTEGER, v, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(v == 1001 + rank, 'scatter')
  ! alltoall: element j (1-based) for rank j-1 holds 100*rank + j-1.
  many = [(100 * rank + (i - 1) / 2, i = 1, 2 * nprocs)]
  back = -1
  call MPI_ALLTOALL(many, 2, MPI_INTEGER, back, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all_equal(back, [(100 * ((i - 1) / 2) + rank, i = 1, 2 * nprocs)]), 'alltoall')

  ! Communicators.
  call MPI_COMM_DUP(MPI_COMM_WORLD, newcomm, ierr)
  call MPI_COMM_RANK(newcomm, v, ierr)
  call check(v == rank .and. newcomm /= MPI_COMM_WORLD, 'comm_dup')
  colour = mod(rank, 2)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, colour, -rank, subcomm, ierr)
  call MPI_COMM_RANK(subcomm, subrank, ierr)
  call MPI_COMM_SIZE(subcomm, subsize, ierr)
  call check(subsize == (nprocs - colour + 1) / 2, 'comm_split size')
  call check(subrank == subsize - 1 - rank / 2, 'comm_split key order')
  v = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_MAX, subcomm, ierr)
  n = nprocs - 1
  if (mod(n, 2) /= colour) n = n - 1
  call check(v == n, 'allreduce on split communicator')
  call MPI_COMM_FREE(subcomm, ierr)
  call check(subcomm == MPI_COMM_NULL, 'comm_free')
  call MPI_COMM_FREE(newcomm, ierr)

  ! Derived datatypes: a vector of every other element, a contiguous pair.
  call MPI_TYPE_VECTOR(4, 1, 2, MPI_INTEGER, vtype, ierr)
  call MPI_TYPE_COMMIT(vtype, ierr)
  call MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, ctype, ierr)
  call MPI_TYPE_COMMIT(ctype, ierr)
  sbuf = rank * 100 + [(i, i = 1, 8)]
  rbuf = -1
  call MPI_SENDRECV(sbuf, 1, vtype, right, 30, rbuf, 2, ctype, left, 30, MPI_COMM_WORLD, st, ierr)
  call check(all_equal(rbuf(1:4), left * 100 + [1, 3, 5, 7]) .and. rbuf(5) == -1, 'vector to contiguous')
  call MPI_GET_COUNT(st, ctype, cnt, ierr)
  call check(cnt == 2, 'count in derived type')
  call MPI_TYPE_FREE(vtype, ierr)
  call MPI_TYPE_FREE(ctype, ierr)
  call check(vtype == MPI_DATATYPE_NULL .and. ctype == MPI_DATATYPE_NULL, 'type_free')

  t1 = MPI_WTIME()
  call check(t1 - t0 >= 0d0, 'MPI_WTIME difference')

  mine = [checks, fails]
  call MPI_REDUCE(mine, totals, 2, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (totals(2) == 0) then
        write (*, '(A,I0,A)') 'fortran_basic: ', totals(1), ' checks passed'
     else
        write (*, '(A,I0,A,I0,A)') 'fortran_basic: ', totals(2), ' of ', totals(1), ' checks FAILED'
     end if
  end if
  call MPI_BCAST(totals, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
  if (totals(2) /= 0) stop 1

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (.not. cond) then
       fails = fails + 1
       write (0, '(A,I0,A,A)') 'rank ', rank, ': check failed: ', what
    end if
  end subroutine check

  logical function all_equal(a, b)
    integer, intent(in) :: a(:), b(:)
    all_equal = size(a) == size(b)
    if (all_equal) all_equal = all(a == b)
  end function all_equal

end program fortran_basic
