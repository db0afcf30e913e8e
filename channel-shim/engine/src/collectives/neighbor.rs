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

use super::task::{CollOutput, Task, TaskOut};
use super::Form;
use crate::comm::CommId;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::request::RequestId;
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
        let (ins, _) = self.neighbors(comm)?;
        let r = self.start_neighbor_exchange(Form::Blocking, comm, call, blocks, recv_bytes)?;
        let got = self.wait_collective(r)?.into_blocks();
        Ok(ins.iter().zip(got).map(|(n, b)| n.map(|_| b)).collect())
    }

    /// [`neighbor_exchange`](Self::neighbor_exchange) in either form
    /// (`call` is the blocking call's code): the request's output is one
    /// block per in-neighbour (`CollOutput::Blocks`, empty for
    /// `MPI_PROC_NULL`).
    pub fn start_neighbor_exchange(
        &mut self,
        form: Form,
        comm: CommId,
        call: CallCode,
        blocks: Vec<Vec<u8>>,
        recv_bytes: &[usize],
    ) -> MpiResult<RequestId> {
        if !call.is_neighborhood() {
            return Err(MpiError::Other);
        }
        let (ins, outs) = self.neighbors(comm)?;
        if blocks.len() != outs.len() || recv_bytes.len() != ins.len() {
            return Err(MpiError::Arg);
        }
        let call = form.call(call);
        let c = self.ctx(comm, call)?;
        let recv_bytes = recv_bytes.to_vec();
        Ok(self.start_task(Task::new(c.io().clone(), async move {
            let mut order: Vec<usize> = (0..ins.len()).collect();
            if call.blocking() == CallCode::Neighbor_alltoall {
                order.reverse();
            }
            let mut recvs = Vec::with_capacity(ins.len());
            for k in order {
                if let Some(r) = ins[k] {
                    recvs.push((k, c.irecv(r, recv_bytes[k]).await?));
                }
            }
            let mut sends = Vec::with_capacity(outs.len());
            for (data, to) in blocks.into_iter().zip(&outs) {
                if let Some(r) = *to {
                    sends.push(c.isend(r, data).await?);
                }
            }
            let mut got = vec![Vec::new(); ins.len()];
            for (k, r) in recvs {
                got[k] = c.wait_recv(r, recv_bytes[k]).await?;
            }
            for s in sends {
                c.wait(s).await?;
            }
            c.outcome(TaskOut::Out(CollOutput::Blocks(got)))
        })))
    }
}
