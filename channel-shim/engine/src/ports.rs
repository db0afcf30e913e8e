//! Client/server connections between groups of one job (MPI 3.1 §10.4):
//! `MPI_Open_port`, `MPI_Close_port`, `MPI_Comm_accept`,
//! `MPI_Comm_connect` and `MPI_Comm_join`.
//!
//! A port is named after the rank that opened it (`mpinetsim-port:<world
//! rank>:<n>`), so connecting needs no name server: the connecting root
//! sends a request naming itself to the port's owner on a context of its
//! own (tagged after the port, so requests for different ports never
//! meet), the accepting root takes it, both roots tell their groups the
//! outcome, and the two groups make their intercommunicator as
//! `MPI_Intercomm_create` does, with the two roots as leaders meeting on a
//! bridge of their own (see [`crate::spawn`]). So any two groups of the
//! job connect, also when one was spawned and shares no communicator
//! with the other; processes of other jobs cannot (a port name from
//! elsewhere is `MPI_ERR_PORT`).

use crate::comm::{Comm, CommId};
use crate::datatype::BuiltinType;
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::group::Group;
use crate::matching::{Source, Tag};
use crate::message_data::MessageData;
use crate::request::{Dest, SendMode};
use crate::session::string_tag;
use crate::transport::Transport;
use crate::Engine;
use std::collections::BTreeSet;

/// `MPI_ERR_PORT`: a port name that is not an open port.
pub const ERR_PORT: i32 = 38;
/// The prefix of every port name.
const PREFIX: &str = "mpinetsim-port:";
/// Connect requests use tags from this one on.
const CONNECT_TAGS: i32 = i32::MIN + 1;
/// The context connect requests travel on: no agreement hands it out, and
/// no program communicator receives on it.
const REQUEST_CONTEXT: u32 = u32::MAX - 11;

/// The ports this process opened and not closed yet.
#[derive(Debug, Default)]
pub struct Ports {
    opened: u64,
    open: BTreeSet<String>,
}

/// The world rank a port name belongs to.
fn owner(port: &str) -> MpiResult<u32> {
    let rest = port.strip_prefix(PREFIX).ok_or(MpiError::Code(ERR_PORT))?;
    let (rank, _) = rest.split_once(':').ok_or(MpiError::Code(ERR_PORT))?;
    rank.parse().map_err(|_| MpiError::Code(ERR_PORT))
}

/// The tag of connect requests for `port` on the world's collective context.
fn request_tag(port: &str) -> i32 {
    CONNECT_TAGS + string_tag(port, 1 << 24)
}

impl<T: Transport> Engine<T> {
    /// `MPI_Open_port`: a new port of this process.
    pub fn open_port(&mut self) -> String {
        self.note_call();
        self.ports.opened += 1;
        let name = format!("{PREFIX}{}:{}", self.t.rank(), self.ports.opened);
        self.ports.open.insert(name.clone());
        name
    }

    /// `MPI_Close_port` (`MPI_ERR_PORT` if `port` is not open here).
    pub fn close_port(&mut self, port: &str) -> MpiResult<()> {
        self.note_call();
        if self.ports.open.remove(port) {
            Ok(())
        } else {
            Err(MpiError::Code(ERR_PORT))
        }
    }

    /// `MPI_Comm_accept` (collective over `comm`): waits at `root`, which
    /// must have opened `port`, for a group to connect, and returns the
    /// intercommunicator with it.
    pub fn comm_accept(&mut self, port: &str, root: u32, comm: CommId) -> MpiResult<CommId> {
        self.note_call();
        let leads = self.comm_rank(comm)? == root;
        let remote = match (leads, self.ports.open.contains(port)) {
            (false, _) => Ok(0),
            (true, true) => self.take_connect_request(port),
            (true, false) => Err(MpiError::Code(ERR_PORT)),
        };
        self.join_groups(comm, root, remote, string_tag(port, self.cfg.tag_ub))
    }

    /// `MPI_Comm_connect` (collective over `comm`): `root` asks the owner
    /// of `port` to accept, and the groups make their intercommunicator.
    pub fn comm_connect(&mut self, port: &str, root: u32, comm: CommId) -> MpiResult<CommId> {
        self.note_call();
        let leads = self.comm_rank(comm)? == root;
        let remote = if leads {
            self.send_connect_request(port)
        } else {
            Ok(0)
        };
        self.join_groups(comm, root, remote, string_tag(port, self.cfg.tag_ub))
    }

    /// `MPI_Comm_join`'s second half: this process and world rank `peer`
    /// (the other end of the program's socket told each its rank) make an
    /// intercommunicator of one process on each side.
    pub fn comm_join(&mut self, peer: u32) -> MpiResult<CommId> {
        self.note_call();
        let me = self.t.rank();
        if peer == me || peer >= self.t.size() {
            return Err(MpiError::Rank);
        }
        let tag = string_tag(
            &format!("join:{}:{}", me.min(peer), me.max(peer)),
            self.cfg.tag_ub,
        );
        self.intercomm_across(CommId::SELF, 0, Some(peer), tag)
    }

    /// At the accepting root: the world rank of the next root that asks to
    /// connect to `port` (its request says it: the two roots may share no
    /// communicator, when one of them was spawned).
    fn take_connect_request(&mut self, port: &str) -> MpiResult<u32> {
        let me = self.t.rank();
        let inbox = self
            .comms
            .add(Comm::new(REQUEST_CONTEXT, Group { ranks: vec![me] }, me));
        let r = self.irecv_raw(
            PREFIX.len() as u64 + 64,
            Source::Any,
            Tag::Value(request_tag(port)),
            inbox,
            REQUEST_CONTEXT,
            None,
            MessageData::default(),
        );
        let got = r.and_then(|r| self.wait(r));
        self.comms.forget(inbox);
        let bytes = got?.data.unwrap_or_default();
        let rank = bytes.get(..4).ok_or(MpiError::Intern)?;
        Ok(u32::from_le_bytes(rank.try_into().expect("four bytes")))
    }

    /// At the connecting root: asks the owner of `port` to accept; the
    /// owner's world rank.
    fn send_connect_request(&mut self, port: &str) -> MpiResult<u32> {
        let owner = owner(port)?;
        let me = self.t.rank();
        if owner >= self.t.size() || owner == me {
            return Err(MpiError::Code(ERR_PORT));
        }
        let (pair, to) = self.comms.add_pair(REQUEST_CONTEXT, me, owner);
        let mut request = me.to_le_bytes().to_vec();
        request.extend_from_slice(port.as_bytes());
        let s = self.isend_packed(
            SendMode::Standard,
            MessageData::from(request),
            Dest::Rank(to),
            request_tag(port),
            pair,
            REQUEST_CONTEXT,
            CallCode::Comm_connect,
            None,
        );
        let sent = s.and_then(|s| self.wait(s));
        self.comms.forget(pair);
        sent?;
        Ok(owner)
    }

    /// Both sides after their roots met (or failed): the root tells its
    /// group the outcome, and the groups make their intercommunicator
    /// with the roots as leaders.
    fn join_groups(
        &mut self,
        comm: CommId,
        root: u32,
        remote: MpiResult<u32>,
        tag: i32,
    ) -> MpiResult<CommId> {
        // 0: the roots met; 1: not a port; 2: another failure.
        let outcome: i32 = match &remote {
            Ok(_) => 0,
            Err(MpiError::Code(ERR_PORT)) => 1,
            Err(_) => 2,
        };
        let b = self.bcast(
            &outcome.to_ne_bytes(),
            1,
            BuiltinType::Int.into(),
            root,
            comm,
        )?;
        match i32::from_ne_bytes(b[..4].try_into().expect("one int")) {
            0 => {}
            1 => return Err(remote.err().unwrap_or(MpiError::Code(ERR_PORT))),
            _ => return Err(remote.err().unwrap_or(MpiError::Other)),
        }
        let leader = match remote {
            Ok(w) if self.comm_rank(comm)? == root => Some(w),
            _ => None,
        };
        self.intercomm_across(comm, root, leader, tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem_transport::run_world;

    #[test]
    fn port_names_say_their_owner_and_close_once() {
        run_world(2, 64, |e| {
            let p = e.open_port();
            assert_eq!(owner(&p), Ok(e.rank()));
            assert_ne!(e.open_port(), p);
            assert_eq!(e.close_port(&p), Ok(()));
            assert_eq!(e.close_port(&p), Err(MpiError::Code(ERR_PORT)));
            assert_eq!(owner("tcp://elsewhere:1"), Err(MpiError::Code(ERR_PORT)));
        });
    }

    #[test]
    fn two_halves_of_the_world_connect_through_a_port_and_join_pairs() {
        // Even ranks accept on world rank 0's first port; odd ranks
        // connect to it. Each side sees the other as the remote group, in
        // the other's order; then ranks 0 and n-1 join one to one.
        for n in [2u32, 4, 5] {
            run_world(n, 64, |e| {
                let me = e.rank();
                let even = me % 2 == 0;
                let half = e
                    .comm_split(CommId::WORLD, Some(even as i32), 0)
                    .unwrap()
                    .unwrap();
                let port = format!("{PREFIX}0:1");
                let ic = if even {
                    if me == 0 {
                        assert_eq!(e.open_port(), port);
                    }
                    e.comm_accept(&port, 0, half).unwrap()
                } else {
                    e.comm_connect(&port, 0, half).unwrap()
                };
                let (evens, odds): (Vec<u32>, Vec<u32>) = (0..n).partition(|r| r % 2 == 0);
                let remote = e.comm_remote_group(ic).unwrap();
                let want = if even { odds } else { evens };
                assert_eq!(e.group(remote).unwrap().ranks, want);
                assert!(e.comm_test_inter(ic).unwrap());
                // A connect to a port nobody opened fails on every member.
                if !even {
                    let bad = format!("{PREFIX}{n}:1");
                    let r = e.comm_connect(&bad, 0, half);
                    assert_eq!(r, Err(MpiError::Code(ERR_PORT)));
                }
                if me == 0 || me == n - 1 {
                    let j = e.comm_join(if me == 0 { n - 1 } else { 0 }).unwrap();
                    assert_eq!(e.comm_remote_size(j).unwrap(), 1);
                    let rg = e.comm_remote_group(j).unwrap();
                    assert_eq!(
                        e.group(rg).unwrap().ranks,
                        vec![if me == 0 { n - 1 } else { 0 }]
                    );
                }
            });
        }
    }
}
