//! Communicator and group calls: size/rank, groups and their algebra,
//! free and compare, and the intercommunicator queries (creating
//! communicators is in [`crate::comm_create`]).

use crate::comm::{Comm, CommId};
use crate::datatype::DatatypeId;
use crate::error::{MpiError, MpiResult};
use crate::group::{Comparison, Group, GroupId};
use crate::object::Object;
use crate::op::OpId;
use crate::transport::Transport;
use crate::Engine;

impl<T: Transport> Engine<T> {
    /// `MPI_Reduce_local`: `inout = in op inout` on user-layout regions
    /// `span(dt, count)`; returns the packed result to unpack into `inout`.
    pub fn reduce_local(
        &mut self,
        inp: &[u8],
        inout: &[u8],
        count: usize,
        dt: DatatypeId,
        op: OpId,
    ) -> MpiResult<Vec<u8>> {
        self.note_call();
        self.ops.check(&self.types, op, dt)?;
        let a = self.types.pack(dt, count, inp)?;
        let mut b = self.types.pack(dt, count, inout)?;
        self.ops.reduce(&self.types, op, dt, count, &a, &mut b)?;
        Ok(b)
    }

    /// `MPI_Comm_size`.
    pub fn comm_size(&self, comm: CommId) -> MpiResult<u32> {
        Ok(self.comm(comm)?.size())
    }

    /// `MPI_Comm_rank`.
    pub fn comm_rank(&self, comm: CommId) -> MpiResult<u32> {
        Ok(self.comm(comm)?.rank)
    }

    /// Context id of `comm`'s collectives (odd; see [`crate::comm`]): the
    /// shim names a collective to the analytic network model by it.
    pub fn coll_context(&self, comm: CommId) -> MpiResult<u32> {
        Ok(self.comm(comm)?.coll_context())
    }

    /// World rank of rank `r` of `comm`.
    pub fn world_rank(&self, comm: CommId, r: u32) -> MpiResult<u32> {
        self.comm(comm)?.world_of(r)
    }

    /// `MPI_Comm_group`.
    pub fn comm_group(&mut self, comm: CommId) -> MpiResult<GroupId> {
        let g = self.comm(comm)?.group.clone();
        Ok(self.groups.add(g))
    }

    /// The members of a group as world ranks.
    pub fn group(&self, g: GroupId) -> MpiResult<&Group> {
        self.groups.get(g)
    }

    /// `MPI_Group_size`.
    pub fn group_size(&self, g: GroupId) -> MpiResult<u32> {
        Ok(self.groups.get(g)?.ranks.len() as u32)
    }

    /// `MPI_Group_rank`: `None` is `MPI_UNDEFINED`.
    pub fn group_rank(&self, g: GroupId) -> MpiResult<Option<u32>> {
        Ok(self.groups.get(g)?.rank_of(self.t.rank()))
    }

    /// `MPI_Group_incl`.
    pub fn group_incl(&mut self, g: GroupId, ranks: &[u32]) -> MpiResult<GroupId> {
        let n = self.groups.get(g)?.incl(ranks)?;
        Ok(self.groups.add(n))
    }

    /// `MPI_Group_excl`.
    pub fn group_excl(&mut self, g: GroupId, ranks: &[u32]) -> MpiResult<GroupId> {
        let n = self.groups.get(g)?.excl(ranks)?;
        Ok(self.groups.add(n))
    }

    /// `MPI_Group_range_incl` with (first, last, stride) triplets.
    pub fn group_range_incl(
        &mut self,
        g: GroupId,
        ranges: &[(i32, i32, i32)],
    ) -> MpiResult<GroupId> {
        let ranks = self.groups.get(g)?.expand_ranges(ranges)?;
        self.group_incl(g, &ranks)
    }

    /// `MPI_Group_range_excl` with (first, last, stride) triplets.
    pub fn group_range_excl(
        &mut self,
        g: GroupId,
        ranges: &[(i32, i32, i32)],
    ) -> MpiResult<GroupId> {
        let ranks = self.groups.get(g)?.expand_ranges(ranges)?;
        self.group_excl(g, &ranks)
    }

    /// `MPI_Group_union`.
    pub fn group_union(&mut self, a: GroupId, b: GroupId) -> MpiResult<GroupId> {
        let n = self.groups.get(a)?.union(self.groups.get(b)?);
        Ok(self.groups.add(n))
    }

    /// `MPI_Group_intersection`.
    pub fn group_intersection(&mut self, a: GroupId, b: GroupId) -> MpiResult<GroupId> {
        let n = self.groups.get(a)?.intersection(self.groups.get(b)?);
        Ok(self.groups.add(n))
    }

    /// `MPI_Group_difference`.
    pub fn group_difference(&mut self, a: GroupId, b: GroupId) -> MpiResult<GroupId> {
        let n = self.groups.get(a)?.difference(self.groups.get(b)?);
        Ok(self.groups.add(n))
    }

    /// `MPI_Group_translate_ranks` (`None` = `MPI_UNDEFINED`; the C layer
    /// passes `MPI_PROC_NULL` through itself).
    pub fn group_translate_ranks(
        &self,
        a: GroupId,
        ranks: &[u32],
        b: GroupId,
    ) -> MpiResult<Vec<Option<u32>>> {
        self.groups.get(a)?.translate(ranks, self.groups.get(b)?)
    }

    /// `MPI_Group_compare`.
    pub fn group_compare(&self, a: GroupId, b: GroupId) -> MpiResult<Comparison> {
        Ok(self.groups.get(a)?.compare(self.groups.get(b)?))
    }

    /// `MPI_Group_free`.
    pub fn group_free(&mut self, g: GroupId) -> MpiResult<()> {
        self.groups.free(g)
    }

    /// `MPI_Comm_compare` (intercommunicators compare both groups).
    pub fn comm_compare(&self, a: CommId, b: CommId) -> MpiResult<Comparison> {
        let (ca, cb) = (self.comm(a)?, self.comm(b)?);
        if a == b {
            return Ok(Comparison::Ident);
        }
        let local = ca.group.compare(&cb.group);
        let both = match (&ca.inter, &cb.inter) {
            (None, None) => local,
            (Some(x), Some(y)) => match (local, x.remote.compare(&y.remote)) {
                (Comparison::Ident, Comparison::Ident) => Comparison::Ident,
                (Comparison::Unequal, _) | (_, Comparison::Unequal) => Comparison::Unequal,
                _ => Comparison::Similar,
            },
            _ => Comparison::Unequal,
        };
        Ok(match both {
            Comparison::Ident => Comparison::Congruent,
            c => c,
        })
    }

    /// `MPI_Comm_test_inter`.
    pub fn comm_test_inter(&self, comm: CommId) -> MpiResult<bool> {
        Ok(self.comm(comm)?.is_inter())
    }

    /// `MPI_Comm_remote_size` (`MPI_ERR_COMM` on an intracommunicator).
    pub fn comm_remote_size(&self, comm: CommId) -> MpiResult<u32> {
        let c = self.comm(comm)?;
        c.inter
            .as_ref()
            .map(|i| i.remote.ranks.len() as u32)
            .ok_or(MpiError::Comm)
    }

    /// `MPI_Comm_remote_group` (`MPI_ERR_COMM` on an intracommunicator).
    pub fn comm_remote_group(&mut self, comm: CommId) -> MpiResult<GroupId> {
        let g = self
            .comm(comm)?
            .inter
            .as_ref()
            .map(|i| i.remote.clone())
            .ok_or(MpiError::Comm)?;
        Ok(self.groups.add(g))
    }

    /// `MPI_Comm_free` (after the C layer made the attributes' delete
    /// callbacks): also forgets the communicator's name, error handler and
    /// any attribute left.
    pub fn comm_free(&mut self, comm: CommId) -> MpiResult<()> {
        self.note_call();
        let context = self.comm(comm)?.context;
        self.comms.free(comm)?;
        // Its context may serve a later communicator, which is not revoked.
        self.revoked_freed(context);
        self.topos.remove(comm);
        self.forget_object(Object::Comm(comm));
        Ok(())
    }

    /// `MPI_Comm_disconnect`: waits until no operation on `comm` is under
    /// way (every send and receive on it complete and matched), then frees
    /// it.
    pub fn comm_disconnect(&mut self, comm: CommId) -> MpiResult<()> {
        self.note_call();
        self.comm(comm)?;
        while self.reqs.any_pending_on(comm) {
            self.progress(true);
        }
        self.comm_free(comm)
    }

    /// Stores a communicator made from `parent`: it inherits the parent's
    /// error handler.
    pub(crate) fn add_comm(&mut self, parent: CommId, comm: Comm) -> CommId {
        let id = self.comms.add(comm);
        self.inherit_errhandler(parent, id);
        id
    }
}

#[cfg(test)]
mod tests {
    use crate::collectives::CollInput;
    use crate::comm::CommId;
    use crate::datatype::BuiltinType as B;
    use crate::group::{Comparison, GroupId};
    use crate::matching::{Source, Tag};
    use crate::mem_transport::run_world;
    use crate::op::BuiltinOp;
    use crate::request::{Dest, SendMode};
    use crate::DatatypeId;

    const W: CommId = CommId::WORLD;
    const INT: DatatypeId = DatatypeId::Builtin(B::Int);

    fn int(x: i32) -> Vec<u8> {
        x.to_ne_bytes().to_vec()
    }

    #[test]
    fn split_orders_by_key_and_isolates() {
        for n in 1..=7u32 {
            run_world(n, 64, |e| {
                let me = e.rank();
                // Colours -1 and 0: negative colours split like any other.
                let color = if me == 3 {
                    None
                } else {
                    Some(me as i32 % 2 - 1)
                };
                let sub = e.comm_split(W, color, -(me as i32)).unwrap();
                if me == 3 {
                    assert!(sub.is_none());
                    return;
                }
                let sub = sub.unwrap();
                let members: Vec<u32> = (0..n)
                    .filter(|&r| r != 3 && r % 2 == me % 2)
                    .rev()
                    .collect();
                assert_eq!(e.comm_size(sub).unwrap(), members.len() as u32);
                let myrank = e.comm_rank(sub).unwrap();
                assert_eq!(members[myrank as usize], me);
                assert_eq!(e.world_rank(sub, 0).unwrap(), members[0]);
                let sum = e
                    .allreduce(
                        CollInput::Buf(&int(me as i32)),
                        1,
                        INT,
                        BuiltinOp::Sum.into(),
                        sub,
                    )
                    .unwrap();
                assert_eq!(sum, int(members.iter().sum::<u32>() as i32));
                // A ring inside the sub-communicator.
                let k = members.len() as u32;
                let (d, s) = e
                    .sendrecv(
                        &int(me as i32),
                        1,
                        INT,
                        Dest::Rank((myrank + 1) % k),
                        0,
                        1,
                        INT,
                        Source::Rank((myrank + k - 1) % k),
                        Tag::Any,
                        sub,
                    )
                    .unwrap();
                assert_eq!(d, int(members[((myrank + k - 1) % k) as usize] as i32));
                assert_eq!(s.source, Source::Rank((myrank + k - 1) % k));
                e.comm_free(sub).unwrap();
                assert!(e.comm_size(sub).is_err());
            });
        }
    }

    #[test]
    fn dup_has_its_own_context() {
        run_world(2, 64, |e| {
            let d = e.comm_dup(W).unwrap();
            assert_eq!(e.comm_compare(W, d).unwrap(), Comparison::Congruent);
            assert_eq!(e.comm_compare(d, d).unwrap(), Comparison::Ident);
            assert_eq!(
                e.comm_compare(W, CommId::SELF).unwrap(),
                Comparison::Unequal
            );
            if e.rank() == 0 {
                e.send(SendMode::Standard, &int(1), 1, INT, Dest::Rank(1), 0, d)
                    .unwrap();
                e.send(SendMode::Standard, &int(2), 1, INT, Dest::Rank(1), 0, W)
                    .unwrap();
                // Same tag as the bcast's internal tag, on the p2p context.
                e.send(SendMode::Standard, &int(3), 1, INT, Dest::Rank(1), 33, W)
                    .unwrap();
                e.bcast(&int(4), 1, INT, 0, W).unwrap();
            } else {
                assert_eq!(
                    e.recv(1, INT, Source::Rank(0), Tag::Value(0), W).unwrap().0,
                    int(2)
                );
                assert_eq!(
                    e.recv(1, INT, Source::Rank(0), Tag::Value(0), d).unwrap().0,
                    int(1)
                );
                assert_eq!(e.bcast(&[], 1, INT, 0, W).unwrap(), int(4));
                assert_eq!(e.recv(1, INT, Source::Any, Tag::Any, W).unwrap().0, int(3));
            }
        });
    }

    #[test]
    fn create_from_group_and_group_calls() {
        run_world(5, 64, |e| {
            let me = e.rank();
            let wg = e.comm_group(W).unwrap();
            assert_eq!(e.group_size(wg).unwrap(), 5);
            assert_eq!(e.group_rank(wg).unwrap(), Some(me));
            let g = e.group_incl(wg, &[4, 1, 2]).unwrap();
            let x = e.group_excl(wg, &[0, 3]).unwrap();
            assert_eq!(e.group_compare(g, x).unwrap(), Comparison::Similar);
            assert_eq!(
                e.group_translate_ranks(g, &[0, 1, 2], wg).unwrap(),
                vec![Some(4), Some(1), Some(2)]
            );
            let empty = e.group_difference(g, x).unwrap();
            assert_eq!(empty, GroupId::EMPTY);
            let c = e.comm_create(W, g).unwrap();
            if [4, 1, 2].contains(&me) {
                let c = c.unwrap();
                assert_eq!(
                    e.comm_rank(c).unwrap(),
                    [4, 1, 2].iter().position(|&r| r == me).unwrap() as u32
                );
                let got = e.bcast(&int(42), 1, INT, 0, c).unwrap();
                assert_eq!(got, int(42));
                let cg = e.comm_group(c).unwrap();
                assert_eq!(e.group_compare(cg, g).unwrap(), Comparison::Ident);
            } else {
                assert!(c.is_none());
            }
            // Further communicators still agree after some ranks skipped one.
            let d = e.comm_dup(W).unwrap();
            e.barrier(d).unwrap();
            e.group_free(g).unwrap();
            assert!(e.group_size(g).is_err());
        });
    }

    #[test]
    fn split_type_groups_ranks_by_node() {
        use crate::comm_create::SplitType;
        use crate::mem_transport::run_world_on_nodes;
        let nodes = [0, 1, 0, 2, 1, 0];
        run_world_on_nodes(&nodes, 64, |e| {
            let me = e.rank();
            let c = e
                .comm_split_type(W, SplitType::Shared, -(me as i32))
                .unwrap()
                .unwrap();
            let mates: Vec<u32> = (0..6u32)
                .rev()
                .filter(|&r| nodes[r as usize] == nodes[me as usize])
                .collect();
            assert_eq!(e.comm_size(c).unwrap() as usize, mates.len());
            assert_eq!(e.world_rank(c, 0).unwrap(), mates[0]);
            assert!(e
                .comm_split_type(W, SplitType::Undefined, 0)
                .unwrap()
                .is_none());
        });
    }

    #[test]
    fn create_group_involves_only_the_group() {
        run_world(6, 64, |e| {
            let me = e.rank();
            let wg = e.comm_group(W).unwrap();
            // Two disjoint groups create their communicators concurrently
            // with the same tag; rank 5 takes part in neither.
            let odd = e.group_incl(wg, &[1, 3]).unwrap();
            let even = e.group_incl(wg, &[4, 2, 0]).unwrap();
            let g = match me {
                5 => None,
                m if m % 2 == 1 => Some(odd),
                _ => Some(even),
            };
            if let Some(g) = g {
                let c = e.comm_create_group(W, g, 3).unwrap();
                let members = e.group(g).unwrap().ranks.clone();
                let pos = members.iter().position(|&r| r == me).unwrap();
                assert_eq!(e.comm_rank(c).unwrap(), pos as u32);
                let s = e
                    .allreduce(
                        CollInput::Buf(&int(me as i32)),
                        1,
                        INT,
                        BuiltinOp::Sum.into(),
                        c,
                    )
                    .unwrap();
                assert_eq!(s, int(members.iter().sum::<u32>() as i32));
            }
            // World's own collectives are not disturbed.
            e.barrier(W).unwrap();
        });
    }
}
