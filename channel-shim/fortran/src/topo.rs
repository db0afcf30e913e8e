//! Process topologies and `MPI_DIMS_CREATE`. `LOGICAL` arrays (`PERIODS`,
//! `REMAIN_DIMS`) are passed as the C `int` arrays they are (gfortran's
//! `LOGICAL` is 4 bytes, `.TRUE.` is 1); ranks and coordinates are the
//! same numbers in both languages.

fortran_wrappers! {
    fn mpi_cart_create_ = MPI_Cart_create(comm_old: In, ndims: In, dims: IntRef, periods: IntRef, reorder: Logical, comm_cart: IntRef);
    fn mpi_cart_sub_ = MPI_Cart_sub(comm: In, remain_dims: IntRef, newcomm: IntRef);
    fn mpi_cartdim_get_ = MPI_Cartdim_get(comm: In, ndims: IntRef);
    fn mpi_cart_get_ = MPI_Cart_get(comm: In, maxdims: In, dims: IntRef, periods: IntRef, coords: IntRef);
    fn mpi_cart_rank_ = MPI_Cart_rank(comm: In, coords: IntRef, rank: IntRef);
    fn mpi_cart_coords_ = MPI_Cart_coords(comm: In, rank: In, maxdims: In, coords: IntRef);
    fn mpi_cart_shift_ = MPI_Cart_shift(comm: In, direction: In, disp: In, rank_source: IntRef, rank_dest: IntRef);
    fn mpi_cart_map_ = MPI_Cart_map(comm: In, ndims: In, dims: IntRef, periods: IntRef, newrank: IntRef);
    fn mpi_dims_create_ = MPI_Dims_create(nnodes: In, ndims: In, dims: IntRef);
    fn mpi_graph_create_ = MPI_Graph_create(comm_old: In, nnodes: In, index: IntRef, edges: IntRef, reorder: Logical, comm_graph: IntRef);
    fn mpi_graphdims_get_ = MPI_Graphdims_get(comm: In, nnodes: IntRef, nedges: IntRef);
    fn mpi_graph_get_ = MPI_Graph_get(comm: In, maxindex: In, maxedges: In, index: IntRef, edges: IntRef);
    fn mpi_graph_neighbors_count_ = MPI_Graph_neighbors_count(comm: In, rank: In, nneighbors: IntRef);
    fn mpi_graph_neighbors_ = MPI_Graph_neighbors(comm: In, rank: In, maxneighbors: In, neighbors: IntRef);
    fn mpi_graph_map_ = MPI_Graph_map(comm: In, nnodes: In, index: IntRef, edges: IntRef, newrank: IntRef);
    fn mpi_dist_graph_create_adjacent_ = MPI_Dist_graph_create_adjacent(
        comm_old: In, indegree: In, sources: IntRef, sourceweights: Weights,
        outdegree: In, destinations: IntRef, destweights: Weights,
        info: In, reorder: Logical, comm_dist_graph: IntRef,
    );
    fn mpi_dist_graph_create_ = MPI_Dist_graph_create(
        comm_old: In, n: In, sources: IntRef, degrees: IntRef, destinations: IntRef, weights: Weights,
        info: In, reorder: Logical, comm_dist_graph: IntRef,
    );
    fn mpi_dist_graph_neighbors_count_ = MPI_Dist_graph_neighbors_count(comm: In, indegree: IntRef, outdegree: IntRef, weighted: IntRef);
    fn mpi_dist_graph_neighbors_ = MPI_Dist_graph_neighbors(
        comm: In, maxindegree: In, sources: IntRef, sourceweights: WeightsOut,
        maxoutdegree: In, destinations: IntRef, destweights: WeightsOut,
    );
    fn mpi_topo_test_ = MPI_Topo_test(comm: In, status: IntRef);
}
