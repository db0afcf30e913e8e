! `use mpi_f08` through mpinetsim, the routines that take strings,
! callbacks, weights or 8-byte counts: names of communicators, datatypes
! and windows, error strings, processor and library names, info objects,
! a user reduction, a communicator error handler, attribute keyvals with
! MPI_COMM_DUP_FN/MPI_COMM_NULL_COPY_FN and a delete callback,
! distributed graphs with weights and MPI_UNWEIGHTED, struct and vector
! datatypes with large counts, Win_allocate and Win_allocate_shared with
! C pointers, Buffer_detach, Waitsome, Wtime/Wtick, Aint_add/diff,
! MPI_Sizeof and MPI_Status_f082f. Prints one line per failed check and,
! on rank 0, the number of checks.
module f08_routines_callbacks
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: handler_calls = 0, handler_code = -1, deletes = 0
  logical :: op_saw_integer = .true.
contains
  ! A user reduction: inoutvec = invec + inoutvec on INTEGERs.
  subroutine add_ints(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b
    if (datatype /= MPI_INTEGER) op_saw_integer = .false.
  end subroutine add_ints

  subroutine count_errors(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    handler_calls = handler_calls + 1
    handler_code = error_code
  end subroutine count_errors

  subroutine count_deletes(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine count_deletes
end module f08_routines_callbacks

program f08_routines
  use mpi_f08
  use f08_routines_callbacks
  use, intrinsic :: iso_c_binding
  implicit none
  type, bind(c) :: pair
    integer(c_int) :: a
    real(c_double) :: b
  end type pair
  integer :: rank, nprocs, left, right, checks, failures, n, ierr, i, outcount, combiner
  integer :: indegree, outdegree, srcs(1), dsts(1), sw(1), dw(1), fstat(MPI_STATUS_SIZE)
  integer :: indices(2), rbuf(2), total
  integer, pointer :: wbuf(:), shbuf(:)
  integer(kind=MPI_ADDRESS_KIND) :: val, asize, base_addr
  integer(kind=MPI_COUNT_KIND) :: blens(2), displs(2), ni, na, nl, nd, lsize
  integer(kind=MPI_ADDRESS_KIND) :: du8
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: text
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=MPI_MAX_INFO_VAL) :: value
  integer, target :: bsend_space(1000)
  type(c_ptr) :: base, detached
  type(MPI_Comm) :: c1, c2, graph
  type(MPI_Datatype) :: st, vec, types(2)
  type(MPI_Win) :: win, shwin
  type(MPI_Info) :: info
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: status, statuses(2)
  type(pair) :: p_out, p_in
  integer :: key1, key2, flagged
  logical :: flag, weighted
  double precision :: t0

  checks = 0
  failures = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)

  ! names
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, n)
  call check(name(1:n) == 'MPI_COMM_WORLD' .and. n == 14, 'world name')
  call MPI_Comm_dup(MPI_COMM_WORLD, c1)
  call MPI_Comm_set_name(c1, 'my comm   ')
  call MPI_Comm_get_name(c1, name, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 7 .and. name == 'my comm', 'comm name')
  call MPI_Type_contiguous(2, MPI_INTEGER, vec)
  call MPI_Type_set_name(vec, 'two ints')
  call MPI_Type_get_name(vec, name, n)
  call check(name(1:n) == 'two ints', 'type name')
  call MPI_Type_free(vec)

  ! strings from the library
  call MPI_Error_string(MPI_ERR_TRUNCATE, text, n)
  call check(n > 0 .and. n <= MPI_MAX_ERROR_STRING .and. len_trim(text) == n, 'error string')
  call MPI_Get_processor_name(name, n)
  call check(n > 0 .and. len_trim(name) == n, 'processor name')
  call MPI_Get_library_version(version, n)
  call check(n > 0, 'library version')

  ! info objects
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'color', 'blue')
  call MPI_Info_set(info, 'size', '42  ')
  call MPI_Info_get_nkeys(info, n)
  call check(n == 2, 'info nkeys')
  call MPI_Info_get_nthkey(info, 0, key)
  call check(key == 'color', 'info nthkey')
  call MPI_Info_get_valuelen(info, 'size', n, flag)
  call check(flag .and. n == 2, 'info valuelen')
  call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, value, flag)
  call check(flag .and. value == 'blue', 'info get')
  n = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(info, 'size', n, value, flag)
  call check(flag .and. value == '42' .and. n == 2, 'info get_string')
  call MPI_Info_delete(info, 'color')
  call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, value, flag)
  call check(.not. flag, 'info deleted key')
  call MPI_Info_free(info)

  ! a user reduction
  call MPI_Op_create(add_ints, .true., op)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(total == nprocs * (nprocs + 1) / 2 .and. op_saw_integer, 'user op')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'freed op')

  ! a communicator error handler
  call MPI_Comm_create_errhandler(count_errors, eh)
  call MPI_Comm_set_errhandler(c1, eh)
  call MPI_Comm_call_errhandler(c1, MPI_ERR_OTHER)
  call check(handler_calls == 1 .and. handler_code == MPI_ERR_OTHER, 'error handler')
  call MPI_Errhandler_free(eh)

  ! attributes: copied by MPI_COMM_DUP_FN, not by MPI_COMM_NULL_COPY_FN
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_deletes, key1, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key2, &
                              0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(c1, key1, 123_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(c1, key2, 456_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(c1, c2)
  call MPI_Comm_get_attr(c2, key1, val, flag)
  call check(flag .and. val == 123, 'attribute copied')
  call MPI_Comm_get_attr(c2, key2, val, flag)
  call check(.not. flag, 'attribute not copied')
  call MPI_Comm_free(c2)
  call MPI_Comm_free(c1)
  call check(deletes == 2, 'delete callback')
  call MPI_Comm_free_keyval(key1)
  call MPI_Comm_free_keyval(key2)

  ! distributed graphs: a weighted ring, then an unweighted one
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, [left], [left + 1], 1, [right], &
                                      [rank + 1], MPI_INFO_NULL, .false., graph)
  call MPI_Dist_graph_neighbors_count(graph, indegree, outdegree, weighted)
  call check(indegree == 1 .and. outdegree == 1 .and. weighted, 'weighted graph count')
  call MPI_Dist_graph_neighbors(graph, 1, srcs, sw, 1, dsts, dw)
  call check(srcs(1) == left .and. sw(1) == left + 1 .and. dsts(1) == right &
             .and. dw(1) == rank + 1, 'weighted graph neighbours')
  call MPI_Comm_free(graph)
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [rank], [1], [right], MPI_UNWEIGHTED, &
                             MPI_INFO_NULL, .false., graph)
  call MPI_Dist_graph_neighbors_count(graph, indegree, outdegree, weighted)
  call check(indegree == 1 .and. outdegree == 1 .and. .not. weighted, 'unweighted graph')
  call MPI_Comm_free(graph)

  ! a struct datatype with 8-byte block lengths and displacements
  blens = 1
  displs = [0_MPI_COUNT_KIND, 8_MPI_COUNT_KIND]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2_MPI_COUNT_KIND, blens, displs, types, st)
  call MPI_Type_commit(st)
  call MPI_Type_size(st, lsize)
  call check(lsize == 12, 'struct size')
  p_out = pair(rank, 1.5d0 * rank)
  call MPI_Sendrecv(p_out, 1, st, right, 0, p_in, 1, st, left, 0, MPI_COMM_WORLD, status)
  call check(p_in%a == left .and. p_in%b == 1.5d0 * left, 'struct sendrecv')
  call MPI_Status_f082f(status, fstat)
  call check(fstat(MPI_SOURCE) == left .and. fstat(MPI_TAG) == 0, 'status f082f')
  call MPI_Type_free(st)
  call MPI_Type_vector(3_MPI_COUNT_KIND, 2_MPI_COUNT_KIND, 5_MPI_COUNT_KIND, MPI_INTEGER, vec)
  call MPI_Type_get_envelope(vec, ni, na, nl, nd, combiner)
  call check(combiner == MPI_COMBINER_VECTOR .and. ni + nl == 3 .and. na == 0 .and. nd == 1, &
             'large vector envelope')
  call MPI_Type_size(vec, n)
  call check(n == 24, 'large vector size')
  call MPI_Type_free(vec)

  ! one-sided on memory MPI allocates (on MPI_COMM_SELF: Debian's MPICH
  ! gives the ranks of one node a wrong baseptr on MPI_COMM_WORLD)
  call MPI_Win_allocate(12_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_SELF, base, win)
  call c_f_pointer(base, wbuf, [3])
  wbuf = [rank, 7, 9]
  call MPI_Win_set_name(win, 'own window')
  call MPI_Win_get_name(win, name, n)
  call check(name(1:n) == 'own window', 'window name')
  call MPI_Win_fence(0, win)
  call MPI_Get(rbuf, 2, MPI_INTEGER, 0, 1_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(rbuf(1) == 7 .and. rbuf(2) == 9, 'win_allocate get')
  call MPI_Win_free(win)
  du8 = 4
  call MPI_Win_allocate_shared(16_MPI_ADDRESS_KIND, du8, MPI_INFO_NULL, MPI_COMM_SELF, &
                               base, shwin)
  call c_f_pointer(base, shbuf, [4])
  shbuf = [1, 2, 3, 4]
  call MPI_Win_shared_query(shwin, 0, asize, du8, detached)
  call check(asize == 16 .and. du8 == 4 .and. c_associated(detached, base), 'shared query')
  call MPI_Win_free(shwin)

  ! Buffer_detach returns the buffer's address
  call MPI_Buffer_attach(bsend_space, 4 * size(bsend_space))
  call MPI_Buffer_detach(detached, n)
  ! (gfortran 12 crashes on c_associated(detached, c_loc(bsend_space)))
  call MPI_Get_address(bsend_space, base_addr)
  call check(n == 4 * size(bsend_space) .and. transfer(detached, base_addr) == base_addr, &
             'buffer detach')

  ! Waitsome over two receives, until no active request is left
  ! (Debian's MPICH 4.0.2 returns 0-based indices through mpi_f08, the
  ! shim 1-based ones as MPI defines: only their number is checked)
  call MPI_Irecv(rbuf(1), 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Send(rank, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
  call MPI_Send(rank, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD)
  flagged = 0
  do
    call MPI_Waitsome(2, reqs, outcount, indices, statuses)
    if (outcount == MPI_UNDEFINED) exit
    flagged = flagged + outcount
  end do
  call check(flagged == 2 .and. all(reqs == MPI_REQUEST_NULL), 'waitsome count')
  call check(rbuf(1) == left .and. rbuf(2) == right, 'waitsome')

  ! functions and module procedures
  t0 = MPI_Wtime()
  call check(MPI_Wtick() > 0 .and. MPI_Wtime() >= t0, 'wtime and wtick')
  call MPI_Get_address(rbuf(1), base_addr)
  call check(MPI_Aint_diff(MPI_Aint_add(base_addr, 8_MPI_ADDRESS_KIND), base_addr) == 8, &
             'aint add and diff')
  call MPI_Sizeof(t0, n)
  call MPI_Sizeof(rbuf, i)
  call check(n == 8 .and. i == 4, 'sizeof')
  call MPI_Pack_external_size('external32', 3, MPI_INTEGER, val)
  call check(val == 12, 'pack_external_size')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_routines: ', checks, ' checks passed'
  call MPI_Finalize()

contains

  include 'check_f08.inc'
end program f08_routines
