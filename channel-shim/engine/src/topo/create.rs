//! Creating communicators with a topology (`MPI_Cart_create`,
//! `MPI_Cart_sub`, `MPI_Graph_create`, `MPI_Dist_graph_create(_adjacent)`)
//! and looking topologies up.
//!
//! The new communicator's context id is agreed on over the old one (one
//! allreduce, as `MPI_Comm_dup`); `MPI_Cart_sub` splits; the general
//! `MPI_Dist_graph_create` also sends every edge to both its ends (an
//! all-to-all of edge counts, then one message per pair of processes that
//! share edges), so its traffic shows in captures like any collective's.

use super::{Cart, DistGraph, Graph, Topology};
use crate::comm::{Comm, CommId};
use crate::datatype::{BuiltinType, DatatypeId};
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::group::Group;
use crate::transport::Transport;
use crate::Engine;

/// One edge of a distributed graph, as sent to one of its ends: the
/// other end and the weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HalfEdge {
    peer: u32,
    weight: i32,
}

fn encode_edges(edges: &[HalfEdge]) -> Vec<u8> {
    edges
        .iter()
        .flat_map(|e| {
            let mut b = e.peer.to_le_bytes().to_vec();
            b.extend_from_slice(&e.weight.to_le_bytes());
            b
        })
        .collect()
}

fn decode_edges(b: &[u8]) -> Vec<HalfEdge> {
    b.chunks_exact(8)
        .map(|c| HalfEdge {
            peer: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            weight: i32::from_le_bytes([c[4], c[5], c[6], c[7]]),
        })
        .collect()
}

impl<T: Transport> Engine<T> {
    /// The topology of `comm`, if it has one (`MPI_Topo_test`).
    pub fn topology(&self, comm: CommId) -> MpiResult<Option<&Topology>> {
        self.comm(comm)?;
        Ok(self.topos.get(comm))
    }

    /// The topology of `comm`, which must have one (`MPI_ERR_TOPOLOGY`).
    pub(crate) fn topology_of(&self, comm: CommId) -> MpiResult<&Topology> {
        self.topology(comm)?.ok_or(MpiError::Topology)
    }

    /// A communicator of the first `n` ranks of `parent` (the others get
    /// `None`), its context id agreed on over all of `parent`.
    fn comm_prefix(&mut self, parent: CommId, n: u32, call: CallCode) -> MpiResult<Option<CommId>> {
        let c = self.comm(parent)?;
        let ranks = c.group.ranks[..n as usize].to_vec();
        let mine = c.rank < n;
        let ctx = self.agree_context(parent, call, mine)?;
        if !mine {
            return Ok(None);
        }
        let me = self.t.rank();
        Ok(Some(
            self.add_comm(parent, Comm::new(ctx, Group { ranks }, me)),
        ))
    }

    /// `MPI_Cart_create` (collective over `comm`; `reorder` is ignored):
    /// the first ∏`dims` ranks get the grid, the others `None`. Zero
    /// dimensions give rank 0 a grid of itself alone, as in MPICH. More
    /// processes than `comm` has is `MPI_ERR_ARG`, a dimension below 1
    /// `MPI_ERR_DIMS`.
    pub fn cart_create(
        &mut self,
        comm: CommId,
        dims: &[i32],
        periods: &[bool],
    ) -> MpiResult<Option<CommId>> {
        let c = self.comm(comm)?;
        let (size, rank) = (c.size(), c.rank);
        if dims.iter().any(|&d| d <= 0) || periods.len() < dims.len() {
            return Err(MpiError::Dims);
        }
        let nodes = dims
            .iter()
            .try_fold(1u64, |p, &d| p.checked_mul(d as u64))
            .filter(|&p| p <= u64::from(size))
            .ok_or(MpiError::Arg)?;
        let udims: Vec<u32> = dims.iter().map(|&d| d as u32).collect();
        let periods = periods[..dims.len()].to_vec();
        if dims.is_empty() {
            if rank != 0 {
                return Ok(None);
            }
            let alone = self.comm_dup(CommId::SELF)?;
            self.topos
                .set(alone, Topology::Cart(Cart::new(udims, periods, 0)));
            return Ok(Some(alone));
        }
        let new = self.comm_prefix(comm, nodes as u32, CallCode::Cart_create)?;
        if let Some(n) = new {
            let r = self.comm(n)?.rank;
            self.topos
                .set(n, Topology::Cart(Cart::new(udims, periods, r)));
        }
        Ok(new)
    }

    /// `MPI_Cart_sub` (collective over `comm`): the grid of the kept
    /// dimensions through this process. Keeping none gives rank 0 of
    /// `comm` a grid of itself alone and the others `None`, as in MPICH.
    pub fn cart_sub(&mut self, comm: CommId, remain: &[bool]) -> MpiResult<Option<CommId>> {
        let Topology::Cart(cart) = self.topology_of(comm)? else {
            return Err(MpiError::Topology);
        };
        let cart = cart.clone();
        if remain.len() < cart.dims.len() {
            return Err(MpiError::Arg);
        }
        let remain = &remain[..cart.dims.len()];
        if !remain.iter().any(|&r| r) {
            return self.cart_create(comm, &[], &[]);
        }
        let (color, key) = cart.sub_split(remain);
        let sub = self
            .comm_split(comm, Some(color), key)?
            .ok_or(MpiError::Other)?;
        let r = self.comm(sub)?.rank;
        self.topos.set(sub, Topology::Cart(cart.sub(remain, r)));
        Ok(Some(sub))
    }

    /// `MPI_Graph_create` (collective over `comm`; `reorder` is ignored):
    /// the first `index.len()` ranks get the graph, the others `None`.
    /// More nodes than processes, a decreasing `index` or an edge to no
    /// node is `MPI_ERR_ARG`.
    pub fn graph_create(
        &mut self,
        comm: CommId,
        index: &[i32],
        edges: &[i32],
    ) -> MpiResult<Option<CommId>> {
        let size = self.comm(comm)?.size();
        let nnodes = index.len();
        if nnodes > size as usize {
            return Err(MpiError::Arg);
        }
        let mut prev = 0;
        for &i in index {
            if i < prev {
                return Err(MpiError::Arg);
            }
            prev = i;
        }
        let nedges = index.last().map_or(0, |&n| n as usize);
        if edges.len() < nedges
            || edges[..nedges]
                .iter()
                .any(|&e| e < 0 || e as usize >= nnodes)
        {
            return Err(MpiError::Arg);
        }
        if nnodes == 0 {
            return Ok(None);
        }
        let graph = Graph {
            index: index.iter().map(|&i| i as u32).collect(),
            edges: edges[..nedges].iter().map(|&e| e as u32).collect(),
        };
        let new = self.comm_prefix(comm, nnodes as u32, CallCode::Graph_create)?;
        if let Some(n) = new {
            self.topos.set(n, Topology::Graph(graph));
        }
        Ok(new)
    }

    /// A copy of `comm` (a new context id, agreed on) for a distributed graph.
    fn dist_graph_comm(&mut self, comm: CommId, call: CallCode) -> MpiResult<CommId> {
        let n = self.comm(comm)?.size();
        self.comm_prefix(comm, n, call)?.ok_or(MpiError::Other)
    }

    /// `MPI_Dist_graph_create_adjacent` (collective over `comm`): this
    /// process's in- and out-edges as given; `weights` `None` is
    /// `MPI_UNWEIGHTED`.
    pub fn dist_graph_create_adjacent(
        &mut self,
        comm: CommId,
        sources: &[i32],
        destinations: &[i32],
        weights: Option<(&[i32], &[i32])>,
    ) -> MpiResult<CommId> {
        let size = self.comm(comm)?.size() as i32;
        let ranks = |v: &[i32]| -> MpiResult<Vec<u32>> {
            v.iter()
                .map(|&r| {
                    if (0..size).contains(&r) {
                        Ok(r as u32)
                    } else {
                        Err(MpiError::Arg)
                    }
                })
                .collect()
        };
        let (sources, destinations) = (ranks(sources)?, ranks(destinations)?);
        let (sw, dw) = match weights {
            Some((s, d)) => (
                s[..sources.len()].to_vec(),
                d[..destinations.len()].to_vec(),
            ),
            None => (vec![0; sources.len()], vec![0; destinations.len()]),
        };
        if sw.iter().chain(&dw).any(|&w| w < 0) {
            return Err(MpiError::Arg);
        }
        let g = DistGraph {
            sources,
            source_weights: sw,
            destinations,
            destination_weights: dw,
            weighted: weights.is_some(),
        };
        let new = self.dist_graph_comm(comm, CallCode::Dist_graph_create_adjacent)?;
        self.topos.set(new, Topology::DistGraph(g));
        Ok(new)
    }

    /// `MPI_Dist_graph_create` (collective over `comm`): this process
    /// names edges `sources[i] → destinations[..]` (`degrees[i]` of them
    /// for source `i`), any process may name any edge; every edge reaches
    /// both its ends. Each process's in-edges (and out-edges) are ordered
    /// by the rank that named them, then in the order it named them.
    pub fn dist_graph_create(
        &mut self,
        comm: CommId,
        sources: &[i32],
        degrees: &[i32],
        destinations: &[i32],
        weights: Option<&[i32]>,
    ) -> MpiResult<CommId> {
        let size = self.comm(comm)?.size();
        let in_range = |r: i32| (0..size as i32).contains(&r);
        if sources.len() != degrees.len() || degrees.iter().any(|&d| d < 0) {
            return Err(MpiError::Arg);
        }
        // For each process: its in-edges and out-edges named here.
        let n = size as usize;
        let mut ins: Vec<Vec<HalfEdge>> = vec![Vec::new(); n];
        let mut outs: Vec<Vec<HalfEdge>> = vec![Vec::new(); n];
        let mut k = 0usize;
        for (&s, &deg) in sources.iter().zip(degrees) {
            for _ in 0..deg {
                let d = *destinations.get(k).ok_or(MpiError::Arg)?;
                let w = match weights {
                    Some(w) => *w.get(k).ok_or(MpiError::Arg)?,
                    None => 0,
                };
                if !in_range(s) || !in_range(d) || w < 0 {
                    return Err(MpiError::Arg);
                }
                ins[d as usize].push(HalfEdge {
                    peer: s as u32,
                    weight: w,
                });
                outs[s as usize].push(HalfEdge {
                    peer: d as u32,
                    weight: w,
                });
                k += 1;
            }
        }
        let new = self.dist_graph_comm(comm, CallCode::Dist_graph_create)?;
        // How many in- and out-edges each process sends each other.
        let counts: Vec<u8> = (0..n)
            .flat_map(|p| {
                let mut b = (ins[p].len() as i32).to_ne_bytes().to_vec();
                b.extend_from_slice(&(outs[p].len() as i32).to_ne_bytes());
                b
            })
            .collect();
        let int = DatatypeId::Builtin(BuiltinType::Int);
        let got = self.alltoall(
            crate::collectives::CollInput::Buf(&counts),
            2,
            int,
            2,
            int,
            new,
        )?;
        let theirs: Vec<(usize, usize)> = got
            .chunks_exact(8)
            .map(|c| {
                let a = i32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
                let b = i32::from_ne_bytes([c[4], c[5], c[6], c[7]]);
                (a.max(0) as usize, b.max(0) as usize)
            })
            .collect();
        let c = self.ctx(new, CallCode::Dist_graph_create)?;
        let me = c.me as usize;
        let mut recvs = Vec::new();
        for (p, &(i, o)) in theirs.iter().enumerate() {
            if p != me && i + o > 0 {
                recvs.push((p, self.c_irecv(&c, p as u32, 8 * (i + o))?));
            }
        }
        let mut sends = Vec::new();
        for p in (0..n).filter(|&p| p != me) {
            if !ins[p].is_empty() || !outs[p].is_empty() {
                let mut b = encode_edges(&ins[p]);
                b.extend(encode_edges(&outs[p]));
                sends.push(self.c_isend(&c, p as u32, b));
            }
        }
        let mut from: Vec<(Vec<HalfEdge>, Vec<HalfEdge>)> = vec![(Vec::new(), Vec::new()); n];
        from[me] = (ins[me].clone(), outs[me].clone());
        for (p, r) in recvs {
            let (i, o) = theirs[p];
            let b = self.c_wait(&c, r, 8 * (i + o))?;
            let all = decode_edges(&b);
            from[p] = (all[..i].to_vec(), all[i..].to_vec());
        }
        for s in sends {
            self.wait_internal(s)?;
        }
        c.outcome(())?;
        let (ins, outs): (Vec<HalfEdge>, Vec<HalfEdge>) = (
            from.iter().flat_map(|f| f.0.iter().copied()).collect(),
            from.iter().flat_map(|f| f.1.iter().copied()).collect(),
        );
        let g = DistGraph {
            sources: ins.iter().map(|e| e.peer).collect(),
            source_weights: ins.iter().map(|e| e.weight).collect(),
            destinations: outs.iter().map(|e| e.peer).collect(),
            destination_weights: outs.iter().map(|e| e.weight).collect(),
            weighted: weights.is_some(),
        };
        self.topos.set(new, Topology::DistGraph(g));
        Ok(new)
    }

    /// `MPI_Cart_map`: this process's rank in a grid of `nodes` processes
    /// (`None`: not in it); more than `comm` has is `MPI_ERR_DIMS`.
    pub fn topo_map(&self, comm: CommId, nodes: u64) -> MpiResult<Option<u32>> {
        let c = self.comm(comm)?;
        if nodes > u64::from(c.size()) {
            return Err(MpiError::Dims);
        }
        Ok((u64::from(c.rank) < nodes).then_some(c.rank))
    }
}

#[cfg(test)]
mod tests {
    use crate::comm::CommId;
    use crate::error::MpiError;
    use crate::mem_transport::run_world;
    use crate::topo::Topology;

    const W: CommId = CommId::WORLD;

    #[test]
    fn cart_create_keeps_the_first_ranks_and_dup_copies_the_grid() {
        run_world(5, 64, |e| {
            let me = e.rank();
            let c = e.cart_create(W, &[2, 2], &[true, false]).unwrap();
            if me == 4 {
                assert!(c.is_none());
            } else {
                let c = c.unwrap();
                assert_eq!(e.comm_rank(c).unwrap(), me);
                let Some(Topology::Cart(g)) = e.topology(c).unwrap() else {
                    panic!("no grid")
                };
                assert_eq!(g.coords, vec![me / 2, me % 2]);
                let d = e.comm_dup(c).unwrap();
                assert_eq!(e.topology(d).unwrap(), e.topology(c).unwrap());
                let row = e.cart_sub(c, &[false, true]).unwrap().unwrap();
                assert_eq!(e.comm_size(row).unwrap(), 2);
                let Some(Topology::Cart(r)) = e.topology(row).unwrap() else {
                    panic!("no sub-grid")
                };
                assert_eq!((r.dims.clone(), r.coords.clone()), (vec![2], vec![me % 2]));
                e.comm_free(d).unwrap();
                assert!(e.topology(d).is_err());
            }
            assert_eq!(e.topology(W).unwrap(), None);
            assert_eq!(
                e.cart_create(W, &[3, 2], &[false, false]),
                Err(MpiError::Arg)
            );
            assert_eq!(e.cart_create(W, &[0], &[false]), Err(MpiError::Dims));
        });
    }

    #[test]
    fn dist_graph_edges_reach_both_ends_in_naming_order() {
        // Every rank names the edges r → r+1 and r → r+2 (mod n), weight
        // 10·r + k; rank 0 also names 2 → 0 with weight 99.
        run_world(4, 64, |e| {
            let me = e.rank() as i32;
            let mut s = vec![me];
            let mut deg = vec![2];
            let mut d = vec![(me + 1) % 4, (me + 2) % 4];
            let mut w = vec![10 * me, 10 * me + 1];
            if me == 0 {
                s.push(2);
                deg.push(1);
                d.push(0);
                w.push(99);
            }
            let g = e.dist_graph_create(W, &s, &deg, &d, Some(&w)).unwrap();
            let Some(Topology::DistGraph(t)) = e.topology(g).unwrap() else {
                panic!("no graph")
            };
            let r = me as u32;
            let mut want_in = vec![
                ((r + 3) % 4, 10 * ((me + 3) % 4)),
                ((r + 2) % 4, 10 * ((me + 2) % 4) + 1),
            ];
            want_in.sort();
            let mut want_out = vec![((r + 1) % 4, 10 * me), ((r + 2) % 4, 10 * me + 1)];
            if me == 0 {
                want_in.insert(0, (2, 99));
            }
            if me == 2 {
                want_out.insert(0, (0, 99));
            }
            let got_in: Vec<(u32, i32)> = t
                .sources
                .iter()
                .copied()
                .zip(t.source_weights.iter().copied())
                .collect();
            let got_out: Vec<(u32, i32)> = t
                .destinations
                .iter()
                .copied()
                .zip(t.destination_weights.iter().copied())
                .collect();
            assert_eq!((got_in, got_out), (want_in, want_out), "rank {me}");
            assert!(t.weighted);
        });
    }
}
