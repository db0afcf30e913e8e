//! Neighbourhood collectives (`MPI_Neighbor_allgather(v)`,
//! `MPI_Neighbor_alltoall(v,w)`): one message along every edge of the
//! communicator's topology, as MPICH's linear schedule sends them — a
//! receive posted from each in-neighbour, a send to each out-neighbour,
//! all on the collective context with the call's tag. Several edges
//! between the same two processes pair up in order (the k-th send to a
//! process matches its k-th receive from this one). Only a periodic grid
//! dimension of 1 or 2 processes has such edges (its −1 and +1
//! neighbours are the same process): `MPI_Neighbor_alltoall` posts its
//! receives last to first, as MPICH 4.0 does, so that the block sent
//! towards +1 lands in the receiver's −1 slot; the `v` and `w` forms post
//! them in order, also as MPICH 4.0 does. `MPI_PROC_NULL`
//! neighbours (off the edge of a non-periodic grid) exchange nothing and
//! their receive blocks are left alone.
//!
//! The C layer packs the block for each out-neighbour and unpacks the
//! block from each in-neighbour, so the five calls share this one
//! exchange.

use crate::comm::CommId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::topo::Neighbor;
use crate::transport::Transport;
use crate::Engine;

impl<T: Transport> Engine<T> {
    /// (in-neighbours, out-neighbours) of this process in `comm`'s
    /// topology (`MPI_ERR_TOPOLOGY` without one).
    pub fn neighbors(&self, comm: CommId) -> MpiResult<(Vec<Neighbor>, Vec<Neighbor>)> {
        let rank = self.comm(comm)?.rank;
        self.topology_of(comm)?.neighbors(rank)
    }

    /// A neighbourhood collective: sends `blocks[k]` (packed) to
    /// out-neighbour `k` and returns, for each in-neighbour `k`, the
    /// `recv_bytes[k]` bytes it sent (`None` for `MPI_PROC_NULL`). A longer
    /// block is cut (`MPI_ERR_TRUNCATE`, after the whole exchange).
    pub fn neighbor_exchange(
        &mut self,
        comm: CommId,
        call: CallCode,
        blocks: Vec<Vec<u8>>,
        recv_bytes: &[usize],
    ) -> MpiResult<Vec<Option<Vec<u8>>>> {
        if !call.is_neighborhood() {
            return Err(MpiError::Other);
        }
        let (ins, outs) = self.neighbors(comm)?;
        if blocks.len() != outs.len() || recv_bytes.len() != ins.len() {
            return Err(MpiError::Arg);
        }
        let c = self.ctx(comm, call)?;
        let mut order: Vec<usize> = (0..ins.len()).collect();
        if call == CallCode::Neighbor_alltoall {
            order.reverse();
        }
        let mut recvs = Vec::with_capacity(ins.len());
        for k in order {
            if let Some(r) = ins[k] {
                recvs.push((k, self.c_irecv(&c, r, recv_bytes[k])?));
            }
        }
        let mut sends = Vec::with_capacity(outs.len());
        for (data, to) in blocks.into_iter().zip(&outs) {
            if let Some(r) = *to {
                sends.push(self.c_isend(&c, r, data));
            }
        }
        let mut got = vec![None; ins.len()];
        for (k, r) in recvs {
            got[k] = Some(self.c_wait(&c, r, recv_bytes[k])?);
        }
        for s in sends {
            self.wait_internal(s)?;
        }
        c.outcome(got)
    }
}
