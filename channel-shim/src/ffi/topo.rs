//! Process topologies: Cartesian grids, graphs and distributed graphs
//! (creation, queries, maps) and `MPI_Dims_create`. The topologies live
//! in the engine (`shim_engine::topo`); this file converts arguments.
//! Reordering is the identity (see the engine's module docs).

use crate::abi::*;
use crate::ffi::call_record;
use crate::ffi::comm::hand_out_comm;
use crate::ffi::engine_access::engine;
use crate::ffi::errors::finish;
use crate::ffi::handles::*;
use crate::ffi::large_count::int_array as ints;
use crate::ffi::symbols::{unweighted, weights_empty};
use crate::ffi::write_out;
use mpinetsim_protocol::trace_calls;
use shim_engine::topo::{dims::dims_create, Cart, DistGraph, Graph, Topology};
use shim_engine::{CommId, MpiError};
use std::os::raw::c_int;

/// Writes `values` to a C array (nothing when empty).
unsafe fn write_ints(p: *mut c_int, values: impl IntoIterator<Item = i64>) {
    if p.is_null() {
        return;
    }
    for (i, v) in values.into_iter().enumerate() {
        *p.add(i) = v as c_int;
    }
}

/// A count argument that may be 0 (negative: `MPI_ERR_ARG`).
fn len_arg(n: c_int) -> Result<usize, MpiError> {
    usize::try_from(n).map_err(|_| MpiError::Arg)
}

/// The rank a neighbour list entry stands for.
fn rank_or_null(r: Option<u32>) -> c_int {
    r.map_or(MPI_PROC_NULL, |r| r as c_int)
}

/// Runs `f` on `comm`'s topology.
fn with_topology<X>(
    func: &str,
    comm: c_int,
    f: impl FnOnce(&Topology, u32) -> Result<X, MpiError>,
) -> Result<X, MpiError> {
    let c = comm_from(comm)?;
    engine(func, |e| {
        let rank = e.comm_rank(c)?;
        let t = e.topology(c)?.ok_or(MpiError::Topology)?;
        f(t, rank)
    })
}

fn cart_of(t: &Topology) -> Result<&Cart, MpiError> {
    match t {
        Topology::Cart(c) => Ok(c),
        _ => Err(MpiError::Topology),
    }
}

fn graph_of(t: &Topology) -> Result<&Graph, MpiError> {
    match t {
        Topology::Graph(g) => Ok(g),
        _ => Err(MpiError::Topology),
    }
}

fn dist_graph_of(t: &Topology) -> Result<&DistGraph, MpiError> {
    match t {
        Topology::DistGraph(d) => Ok(d),
        _ => Err(MpiError::Topology),
    }
}

/// Hands out a communicator made by `make` (or `MPI_COMM_NULL`).
unsafe fn create(
    func: &str,
    comm: c_int,
    newcomm: *mut c_int,
    make: impl FnOnce(CommId) -> Result<Option<CommId>, MpiError>,
) -> c_int {
    let r = (|| {
        let c = comm_from(comm)?;
        let id = make(c)?;
        hand_out_comm(id, newcomm);
        Ok(())
    })();
    finish(comm, func, r)
}

mpi_fn! { fn MPI_Cart_create(comm_old: c_int, ndims: c_int, dims: *const c_int, periods: *const c_int, reorder: c_int, comm_cart: *mut c_int) {
    let _ = reorder;
    create("MPI_Cart_create", comm_old, comm_cart, |c| {
        let n = usize::try_from(ndims).map_err(|_| MpiError::Dims)?;
        let d = ints(n, dims)?;
        let p: Vec<bool> = ints(n, periods)?.iter().map(|&v| v != 0).collect();
        let new = engine("MPI_Cart_create", |e| e.cart_create(c, &d, &p))?;
        let args = d.iter().copied().chain(p.iter().map(|&b| b as i32)).collect();
        call_record::comm_made(trace_calls::COMM_MAKE_CART, c, args, new);
        Ok(new)
    })
} }

mpi_fn! { fn MPI_Cart_sub(comm: c_int, remain_dims: *const c_int, newcomm: *mut c_int) {
    create("MPI_Cart_sub", comm, newcomm, |c| {
        let ndims = with_topology("MPI_Cart_sub", comm, |t, _| Ok(cart_of(t)?.dims.len()))?;
        let remain: Vec<bool> = ints(ndims, remain_dims)?.iter().map(|&v| v != 0).collect();
        let new = engine("MPI_Cart_sub", |e| e.cart_sub(c, &remain))?;
        let args = remain.iter().map(|&b| b as i32).collect();
        call_record::comm_made(trace_calls::COMM_MAKE_CART_SUB, c, args, new);
        Ok(new)
    })
} }

mpi_fn! { fn MPI_Cartdim_get(comm: c_int, ndims: *mut c_int) {
    let r = with_topology("MPI_Cartdim_get", comm, |t, _| Ok(cart_of(t)?.dims.len()))
        .map(|n| write_out(ndims, n as c_int));
    finish(comm, "MPI_Cartdim_get", r)
} }

mpi_fn! { fn MPI_Cart_get(comm: c_int, maxdims: c_int, dims: *mut c_int, periods: *mut c_int, coords: *mut c_int) {
    let r = (|| {
        let max = len_arg(maxdims)?;
        let cart = with_topology("MPI_Cart_get", comm, |t, _| Ok(cart_of(t)?.clone()))?;
        let n = cart.dims.len().min(max);
        write_ints(dims, cart.dims[..n].iter().map(|&d| i64::from(d)));
        write_ints(periods, cart.periods[..n].iter().map(|&p| i64::from(p)));
        write_ints(coords, cart.coords[..n].iter().map(|&c| i64::from(c)));
        Ok(())
    })();
    finish(comm, "MPI_Cart_get", r)
} }

mpi_fn! { fn MPI_Cart_rank(comm: c_int, coords: *const c_int, rank: *mut c_int) {
    let r = (|| {
        let cart = with_topology("MPI_Cart_rank", comm, |t, _| Ok(cart_of(t)?.clone()))?;
        let xy: Vec<i64> = ints(cart.dims.len(), coords)?.iter().map(|&c| i64::from(c)).collect();
        write_out(rank, cart.rank_of(&xy)? as c_int);
        Ok(())
    })();
    finish(comm, "MPI_Cart_rank", r)
} }

mpi_fn! { fn MPI_Cart_coords(comm: c_int, rank: c_int, maxdims: c_int, coords: *mut c_int) {
    let r = (|| {
        let max = len_arg(maxdims)?;
        let cart = with_topology("MPI_Cart_coords", comm, |t, _| Ok(cart_of(t)?.clone()))?;
        let r = u32::try_from(rank).ok().filter(|&r| r < cart.nnodes()).ok_or(MpiError::Rank)?;
        if max < cart.dims.len() {
            return Err(MpiError::Arg);
        }
        write_ints(coords, cart.coords_of(r).iter().map(|&c| i64::from(c)));
        Ok(())
    })();
    finish(comm, "MPI_Cart_coords", r)
} }

mpi_fn! { fn MPI_Cart_shift(comm: c_int, direction: c_int, disp: c_int, rank_source: *mut c_int, rank_dest: *mut c_int) {
    let r = (|| {
        let (s, d) = with_topology("MPI_Cart_shift", comm, |t, _| cart_of(t)?.shift(direction, disp))?;
        write_out(rank_source, rank_or_null(s));
        write_out(rank_dest, rank_or_null(d));
        Ok(())
    })();
    finish(comm, "MPI_Cart_shift", r)
} }

mpi_fn! { fn MPI_Cart_map(comm: c_int, ndims: c_int, dims: *const c_int, periods: *const c_int, newrank: *mut c_int) {
    let _ = periods;
    let r = (|| {
        let c = comm_from(comm)?;
        let n = usize::try_from(ndims).map_err(|_| MpiError::Dims)?;
        let d = ints(n, dims)?;
        if d.iter().any(|&x| x <= 0) {
            return Err(MpiError::Dims);
        }
        let nodes = d.iter().try_fold(1u64, |p, &x| p.checked_mul(x as u64)).ok_or(MpiError::Dims)?;
        let r = engine("MPI_Cart_map", |e| e.topo_map(c, nodes))?;
        write_out(newrank, r.map_or(MPI_UNDEFINED, |r| r as c_int));
        Ok(())
    })();
    finish(comm, "MPI_Cart_map", r)
} }

mpi_fn! { fn MPI_Dims_create(nnodes: c_int, ndims: c_int, dims: *mut c_int) {
    let r = (|| {
        let n = len_arg(ndims)?;
        if n == 0 {
            return Ok(());
        }
        if dims.is_null() {
            return Err(MpiError::Arg);
        }
        let d = std::slice::from_raw_parts_mut(dims, n);
        dims_create(nnodes, d)
    })();
    finish(MPI_COMM_WORLD, "MPI_Dims_create", r)
} }

mpi_fn! { fn MPI_Graph_create(comm_old: c_int, nnodes: c_int, index: *const c_int, edges: *const c_int, reorder: c_int, comm_graph: *mut c_int) {
    let _ = reorder;
    create("MPI_Graph_create", comm_old, comm_graph, |c| {
        let idx = ints(len_arg(nnodes)?, index)?;
        let nedges = len_arg(idx.last().copied().unwrap_or(0))?;
        let ed = ints(nedges, edges)?;
        let new = engine("MPI_Graph_create", |e| e.graph_create(c, &idx, &ed))?;
        let args = std::iter::once(idx.len() as i32).chain(idx.iter().copied()).chain(ed.iter().copied()).collect();
        call_record::comm_made(trace_calls::COMM_MAKE_GRAPH, c, args, new);
        Ok(new)
    })
} }

mpi_fn! { fn MPI_Graphdims_get(comm: c_int, nnodes: *mut c_int, nedges: *mut c_int) {
    let r = with_topology("MPI_Graphdims_get", comm, |t, _| {
        let g = graph_of(t)?;
        Ok((g.index.len(), g.edges.len()))
    })
    .map(|(n, m)| {
        write_out(nnodes, n as c_int);
        write_out(nedges, m as c_int);
    });
    finish(comm, "MPI_Graphdims_get", r)
} }

mpi_fn! { fn MPI_Graph_get(comm: c_int, maxindex: c_int, maxedges: c_int, index: *mut c_int, edges: *mut c_int) {
    let r = (|| {
        let (mi, me) = (len_arg(maxindex)?, len_arg(maxedges)?);
        let g = with_topology("MPI_Graph_get", comm, |t, _| Ok(graph_of(t)?.clone()))?;
        write_ints(index, g.index.iter().take(mi).map(|&i| i64::from(i)));
        write_ints(edges, g.edges.iter().take(me).map(|&e| i64::from(e)));
        Ok(())
    })();
    finish(comm, "MPI_Graph_get", r)
} }

mpi_fn! { fn MPI_Graph_neighbors_count(comm: c_int, rank: c_int, nneighbors: *mut c_int) {
    let r = with_topology("MPI_Graph_neighbors_count", comm, |t, _| {
        let r = u32::try_from(rank).map_err(|_| MpiError::Rank)?;
        Ok(graph_of(t)?.neighbors(r)?.len())
    })
    .map(|n| write_out(nneighbors, n as c_int));
    finish(comm, "MPI_Graph_neighbors_count", r)
} }

mpi_fn! { fn MPI_Graph_neighbors(comm: c_int, rank: c_int, maxneighbors: c_int, neighbors: *mut c_int) {
    let r = (|| {
        let max = len_arg(maxneighbors)?;
        let n = with_topology("MPI_Graph_neighbors", comm, |t, _| {
            let r = u32::try_from(rank).map_err(|_| MpiError::Rank)?;
            Ok(graph_of(t)?.neighbors(r)?.to_vec())
        })?;
        write_ints(neighbors, n.iter().take(max).map(|&x| i64::from(x)));
        Ok(())
    })();
    finish(comm, "MPI_Graph_neighbors", r)
} }

mpi_fn! { fn MPI_Graph_map(comm: c_int, nnodes: c_int, index: *const c_int, edges: *const c_int, newrank: *mut c_int) {
    let _ = (index, edges);
    let r = (|| {
        let c = comm_from(comm)?;
        let n = u64::try_from(nnodes).map_err(|_| MpiError::Arg)?;
        let r = engine("MPI_Graph_map", |e| e.topo_map(c, n)).map_err(|e| {
            if e == MpiError::Dims { MpiError::Arg } else { e }
        })?;
        write_out(newrank, r.map_or(MPI_UNDEFINED, |r| r as c_int));
        Ok(())
    })();
    finish(comm, "MPI_Graph_map", r)
} }

/// Weights from C: `None` for `MPI_UNWEIGHTED`, none for
/// `MPI_WEIGHTS_EMPTY`, else `n` of them.
unsafe fn weights_arg(n: usize, p: *const c_int) -> Result<Option<Vec<i32>>, MpiError> {
    if std::ptr::eq(p, unweighted()) {
        Ok(None)
    } else if std::ptr::eq(p, weights_empty()) {
        Ok(Some(vec![0; n]))
    } else {
        ints(n, p).map(Some)
    }
}

mpi_fn! { fn MPI_Dist_graph_create_adjacent(comm_old: c_int, indegree: c_int, sources: *const c_int, sourceweights: *const c_int,
                                            outdegree: c_int, destinations: *const c_int, destweights: *const c_int,
                                            info: c_int, reorder: c_int, comm_dist_graph: *mut c_int) {
    let _ = (info, reorder);
    create("MPI_Dist_graph_create_adjacent", comm_old, comm_dist_graph, |c| {
        let (ni, no) = (len_arg(indegree)?, len_arg(outdegree)?);
        let (s, d) = (ints(ni, sources)?, ints(no, destinations)?);
        let sw = weights_arg(ni, sourceweights)?;
        let dw = weights_arg(no, destweights)?;
        // Weighted when the sources' weights are given (as in MPICH).
        let dw = dw.unwrap_or_else(|| vec![0; no]);
        let w = sw.as_deref().map(|a| (a, dw.as_slice()));
        let new = engine("MPI_Dist_graph_create_adjacent", |e| e.dist_graph_create_adjacent(c, &s, &d, w))?;
        let mut args = vec![ni as i32, no as i32, sw.is_some() as i32];
        args.extend(s.iter().chain(&d));
        if let Some(sw) = &sw {
            args.extend(sw.iter().chain(&dw));
        }
        call_record::comm_made(trace_calls::COMM_MAKE_DIST_GRAPH_ADJACENT, c, args, Some(new));
        Ok(Some(new))
    })
} }

mpi_fn! { fn MPI_Dist_graph_create(comm_old: c_int, n: c_int, sources: *const c_int, degrees: *const c_int,
                                   destinations: *const c_int, weights: *const c_int,
                                   info: c_int, reorder: c_int, comm_dist_graph: *mut c_int) {
    let _ = (info, reorder);
    create("MPI_Dist_graph_create", comm_old, comm_dist_graph, |c| {
        let k = len_arg(n)?;
        let (s, deg) = (ints(k, sources)?, ints(k, degrees)?);
        let total = deg.iter().try_fold(0usize, |t, &d| Ok(t + len_arg(d)?))?;
        let d = ints(total, destinations)?;
        let w = weights_arg(total, weights)?;
        let new = engine("MPI_Dist_graph_create", |e| e.dist_graph_create(c, &s, &deg, &d, w.as_deref()))?;
        let mut args = vec![k as i32, w.is_some() as i32];
        args.extend(s.iter().chain(&deg).chain(&d));
        if let Some(w) = &w {
            args.extend(w.iter());
        }
        call_record::comm_made(trace_calls::COMM_MAKE_DIST_GRAPH, c, args, Some(new));
        Ok(Some(new))
    })
} }

mpi_fn! { fn MPI_Dist_graph_neighbors_count(comm: c_int, indegree: *mut c_int, outdegree: *mut c_int, weighted: *mut c_int) {
    let r = with_topology("MPI_Dist_graph_neighbors_count", comm, |t, _| {
        let d = dist_graph_of(t)?;
        Ok((d.sources.len(), d.destinations.len(), d.weighted))
    })
    .map(|(i, o, w)| {
        write_out(indegree, i as c_int);
        write_out(outdegree, o as c_int);
        write_out(weighted, w as c_int);
    });
    finish(comm, "MPI_Dist_graph_neighbors_count", r)
} }

mpi_fn! { fn MPI_Dist_graph_neighbors(comm: c_int, maxindegree: c_int, sources: *mut c_int, sourceweights: *mut c_int,
                                      maxoutdegree: c_int, destinations: *mut c_int, destweights: *mut c_int) {
    let r = (|| {
        let (mi, mo) = (len_arg(maxindegree)?, len_arg(maxoutdegree)?);
        let d = with_topology("MPI_Dist_graph_neighbors", comm, |t, _| Ok(dist_graph_of(t)?.clone()))?;
        write_ints(sources, d.sources.iter().take(mi).map(|&x| i64::from(x)));
        write_ints(destinations, d.destinations.iter().take(mo).map(|&x| i64::from(x)));
        if d.weighted {
            if !std::ptr::eq(sourceweights, unweighted()) {
                write_ints(sourceweights, d.source_weights.iter().take(mi).map(|&x| i64::from(x)));
            }
            if !std::ptr::eq(destweights, unweighted()) {
                write_ints(destweights, d.destination_weights.iter().take(mo).map(|&x| i64::from(x)));
            }
        }
        Ok(())
    })();
    finish(comm, "MPI_Dist_graph_neighbors", r)
} }

mpi_fn! { fn MPI_Topo_test(comm: c_int, status: *mut c_int) {
    let r = (|| {
        let c = comm_from(comm)?;
        let kind = engine("MPI_Topo_test", |e| {
            Ok(match e.topology(c)? {
                Some(Topology::Cart(_)) => MPI_CART,
                Some(Topology::Graph(_)) => MPI_GRAPH,
                Some(Topology::DistGraph(_)) => MPI_DIST_GRAPH,
                None => MPI_UNDEFINED,
            })
        })?;
        write_out(status, kind);
        Ok(())
    })();
    finish(comm, "MPI_Topo_test", r)
} }
