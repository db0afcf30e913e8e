//! MPI 4.0's Sessions model (§11.3): sessions, the process sets they
//! offer, and communicators made from groups without a parent
//! communicator.
//!
//! A session is a handle with a thread level and an error handler. It
//! offers two process sets, `mpi://WORLD` (every process of the job) and
//! `mpi://SELF` (this process); their names are compared without regard
//! to case, as MPICH does. A group made from a process set is an ordinary
//! group. `MPI_Comm_create_from_group` is a collective over the group's
//! members only: it runs as `MPI_Comm_create_group` on the job's world
//! communicator (which the engine has whether or not the program called
//! `MPI_Init`), with a tag derived from the program's string tag, so
//! concurrent creations with different string tags (from several
//! threads) agree on their context ids independently.
//! `MPI_Intercomm_create_from_groups` first makes the local group's
//! communicator that way, then joins the two groups as
//! `MPI_Intercomm_create` does, with the world communicator as peer.

use crate::comm::CommId;
use crate::errhandler::{ErrhandlerId, ErrorAction};
use crate::error::{MpiError, MpiResult};
use crate::group::{Group, GroupId};
use crate::info::Pairs;
use crate::request::RequestId;
use crate::transport::Transport;
use crate::Engine;
use std::collections::HashMap;

/// A session, numbered by the engine from 0 (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SessionId(pub u32);

/// MPI's thread levels, as their `thread_level` info values name them
/// (index = the level's value: `MPI_THREAD_SINGLE` is 0).
pub const THREAD_LEVEL_NAMES: [&str; 4] = [
    "MPI_THREAD_SINGLE",
    "MPI_THREAD_FUNNELED",
    "MPI_THREAD_SERIALIZED",
    "MPI_THREAD_MULTIPLE",
];

/// `MPI_THREAD_MULTIPLE`: what a session provides unless its info asks
/// for less (as MPICH's sessions do).
pub const THREAD_MULTIPLE: i32 = 3;

/// The info key a session's thread level is asked for and reported by.
pub const THREAD_LEVEL_KEY: &str = "thread_level";

/// The info key of a process set's size (`MPI_Session_get_pset_info`).
pub const PSET_SIZE_KEY: &str = "mpi_size";

/// The thread level an info object asks for with `thread_level`: `None`
/// when the key is absent or names no level (a hint the implementation
/// does not understand is ignored, MPI 4.0 §10.1).
pub fn requested_thread_level(info: &Pairs) -> Option<i32> {
    let (_, value) = info.iter().find(|(k, _)| k == THREAD_LEVEL_KEY)?;
    THREAD_LEVEL_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(value.trim()))
        .map(|i| i as i32)
}

/// The thread level a session provides: what `info` asks for (else
/// `MPI_THREAD_MULTIPLE`), raised to the process's `process_level`.
pub fn session_thread_level(info: &Pairs, process_level: i32) -> i32 {
    requested_thread_level(info)
        .unwrap_or(THREAD_MULTIPLE)
        .max(process_level)
        .clamp(0, THREAD_MULTIPLE)
}

/// The process sets every session offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessSet {
    /// `mpi://WORLD`: every process of the job, in world rank order.
    World,
    /// `mpi://SELF`: this process alone.
    OneSelf,
}

impl ProcessSet {
    /// Every process set, in the order `MPI_Session_get_nth_pset` lists them.
    pub const ALL: [ProcessSet; 2] = [ProcessSet::World, ProcessSet::OneSelf];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            ProcessSet::World => "mpi://WORLD",
            ProcessSet::OneSelf => "mpi://SELF",
        }
    }

    /// The process set called `name` (case does not matter).
    pub fn named(name: &str) -> MpiResult<ProcessSet> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
            .ok_or(MpiError::Arg)
    }

    /// Its members' world ranks, for process `rank` of the world of the
    /// `count` ranks from `first` on.
    pub fn members(self, rank: u32, (first, count): (u32, u32)) -> Vec<u32> {
        match self {
            ProcessSet::World => (first..first + count).collect(),
            ProcessSet::OneSelf => vec![rank],
        }
    }
}

/// One open session.
#[derive(Clone, Debug)]
pub struct Session {
    /// The thread level it provides (0 = `MPI_THREAD_SINGLE` ... 3).
    pub thread_level: i32,
    /// Its error handler.
    pub errhandler: ErrhandlerId,
}

/// The open sessions of one process.
#[derive(Debug, Default)]
pub struct Sessions {
    open: HashMap<SessionId, Session>,
    next: u32,
}

impl Sessions {
    /// Opens a session.
    pub fn open(&mut self, s: Session) -> SessionId {
        let id = SessionId(self.next);
        self.next += 1;
        self.open.insert(id, s);
        id
    }

    /// The open session `id` (`MPI_ERR_SESSION` otherwise).
    pub fn get(&self, id: SessionId) -> MpiResult<&Session> {
        self.open.get(&id).ok_or(MpiError::Session)
    }

    /// Closes session `id`, giving it back.
    pub fn close(&mut self, id: SessionId) -> MpiResult<Session> {
        self.open.remove(&id).ok_or(MpiError::Session)
    }

    /// How many sessions are open.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    /// Whether no session is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

/// The tag `MPI_Comm_create_group` uses for string tag `tag`: its 32-bit
/// FNV-1a hash, folded into `0..=tag_ub`. Every member computes the same
/// tag; different string tags almost always give different ones, and
/// equal tags only matter for creations that run at the same time on
/// overlapping groups.
pub fn string_tag(tag: &str, tag_ub: i32) -> i32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in tag.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h % (tag_ub as u32).saturating_add(1).max(1)) as i32
}

impl<T: Transport> Engine<T> {
    /// `MPI_Session_init`: a session with error handler `errhandler` and
    /// the thread level `info` asks for (else `MPI_THREAD_MULTIPLE`), or
    /// the process's `process_level` if higher (the threads of a process
    /// share one level, as in MPICH).
    pub fn session_init(
        &mut self,
        info: &Pairs,
        errhandler: ErrhandlerId,
        process_level: i32,
    ) -> MpiResult<SessionId> {
        if !self.errhandlers.exists(errhandler) {
            return Err(MpiError::Arg);
        }
        self.errhandlers.add_ref(errhandler);
        let thread_level = session_thread_level(info, process_level);
        Ok(self.sessions.open(Session {
            thread_level,
            errhandler,
        }))
    }

    /// `MPI_Session_finalize`.
    pub fn session_finalize(&mut self, id: SessionId) -> MpiResult<()> {
        let s = self.sessions.close(id)?;
        self.errhandlers.release(s.errhandler);
        Ok(())
    }

    /// How many sessions are open.
    pub fn sessions_open(&self) -> usize {
        self.sessions.len()
    }

    /// The open session `id`.
    pub fn session(&self, id: SessionId) -> MpiResult<&Session> {
        self.sessions.get(id)
    }

    /// `MPI_Session_get_info`: the thread level the session provides.
    pub fn session_info(&self, id: SessionId) -> MpiResult<Pairs> {
        let level = self.sessions.get(id)?.thread_level;
        Ok(vec![(
            THREAD_LEVEL_KEY.into(),
            THREAD_LEVEL_NAMES[level as usize].into(),
        )])
    }

    /// `MPI_Session_get_nth_pset`: the name of process set `n`.
    pub fn session_nth_pset(&self, id: SessionId, n: usize) -> MpiResult<&'static str> {
        self.sessions.get(id)?;
        ProcessSet::ALL
            .get(n)
            .map(|p| p.name())
            .ok_or(MpiError::Arg)
    }

    /// `MPI_Session_get_num_psets`.
    pub fn session_num_psets(&self, id: SessionId) -> MpiResult<usize> {
        self.sessions.get(id)?;
        Ok(ProcessSet::ALL.len())
    }

    /// `MPI_Session_get_pset_info`: the process set's size (`mpi_size`).
    pub fn session_pset_info(&self, id: SessionId, name: &str) -> MpiResult<Pairs> {
        let members = self.pset_members(id, name)?;
        Ok(vec![(PSET_SIZE_KEY.into(), members.len().to_string())])
    }

    fn pset_members(&self, id: SessionId, name: &str) -> MpiResult<Vec<u32>> {
        self.sessions.get(id)?;
        Ok(ProcessSet::named(name)?.members(self.t.rank(), self.t.world()))
    }

    /// `MPI_Group_from_session_pset`.
    pub fn group_from_session_pset(&mut self, id: SessionId, name: &str) -> MpiResult<GroupId> {
        let ranks = self.pset_members(id, name)?;
        Ok(self.groups.add(Group { ranks }))
    }

    /// `MPI_Session_set_errhandler`.
    pub fn session_set_errhandler(&mut self, id: SessionId, h: ErrhandlerId) -> MpiResult<()> {
        self.sessions.get(id)?;
        if !self.errhandlers.exists(h) {
            return Err(MpiError::Arg);
        }
        self.errhandlers.add_ref(h);
        let s = self.sessions.open.get_mut(&id).ok_or(MpiError::Session)?;
        let old = std::mem::replace(&mut s.errhandler, h);
        self.errhandlers.release(old);
        Ok(())
    }

    /// `MPI_Session_get_errhandler` (a created handler gains a reference
    /// the program must free).
    pub fn session_get_errhandler(&mut self, id: SessionId) -> MpiResult<ErrhandlerId> {
        let h = self.sessions.get(id)?.errhandler;
        self.errhandlers.add_ref(h);
        Ok(h)
    }

    /// What an error on session `id` does (`None`: no such session).
    pub fn session_error_handling(&self, id: SessionId) -> Option<ErrorAction> {
        let h = self.sessions.get(id).ok()?.errhandler;
        Some(self.errhandlers.action(h))
    }

    /// `MPI_Comm_create_from_group`, started: the members of `group`
    /// create a communicator, told apart from concurrent creations by
    /// `tag`. Completes with the new communicator (see
    /// [`wait_comm`](Self::wait_comm)).
    pub fn start_comm_create_from_group(
        &mut self,
        group: GroupId,
        tag: &str,
    ) -> MpiResult<RequestId> {
        let t = string_tag(tag, self.cfg.tag_ub);
        self.start_comm_create_group(CommId::WORLD, group, t)
    }

    /// `MPI_Comm_create_from_group`, to its end.
    pub fn comm_create_from_group(&mut self, group: GroupId, tag: &str) -> MpiResult<CommId> {
        let r = self.start_comm_create_from_group(group, tag)?;
        self.wait_comm(r)?.ok_or(MpiError::Other)
    }

    /// The second step of `MPI_Intercomm_create_from_groups`, started: the
    /// members of `local_comm` (made from the local group by
    /// [`start_comm_create_from_group`](Self::start_comm_create_from_group))
    /// join member `remote_leader` of `remote_group` and its group. The
    /// leaders talk over the world communicator with a tag other than the
    /// first step's.
    pub fn start_intercomm_from_groups(
        &mut self,
        local_comm: CommId,
        local_leader: u32,
        remote_group: GroupId,
        remote_leader: u32,
        tag: &str,
    ) -> MpiResult<RequestId> {
        let remote = self.groups.get(remote_group)?;
        let peer = *remote
            .ranks
            .get(remote_leader as usize)
            .ok_or(MpiError::Rank)?;
        let t = string_tag(tag, self.cfg.tag_ub) ^ 1;
        self.start_intercomm_create(local_comm, local_leader, CommId::WORLD, peer, t)
    }

    /// `MPI_Intercomm_create_from_groups`, to its end.
    pub fn intercomm_create_from_groups(
        &mut self,
        local_group: GroupId,
        local_leader: u32,
        remote_group: GroupId,
        remote_leader: u32,
        tag: &str,
    ) -> MpiResult<CommId> {
        let local = self.comm_create_from_group(local_group, tag)?;
        let r = self.start_intercomm_from_groups(
            local,
            local_leader,
            remote_group,
            remote_leader,
            tag,
        )?;
        let inter = self.wait_comm(r)?.ok_or(MpiError::Other);
        self.comm_free(local)?;
        inter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem_transport::run_world;

    #[test]
    fn thread_level_from_info() {
        let info = |v: &str| vec![(THREAD_LEVEL_KEY.to_string(), v.to_string())];
        assert_eq!(requested_thread_level(&info("MPI_THREAD_SINGLE")), Some(0));
        assert_eq!(
            requested_thread_level(&info("mpi_thread_serialized")),
            Some(2)
        );
        assert_eq!(
            requested_thread_level(&info("MPI_THREAD_MULTIPLE")),
            Some(3)
        );
        assert_eq!(requested_thread_level(&info("fast")), None);
        assert_eq!(requested_thread_level(&Pairs::new()), None);
        assert_eq!(session_thread_level(&Pairs::new(), 0), 3);
        assert_eq!(session_thread_level(&info("MPI_THREAD_FUNNELED"), 0), 1);
        assert_eq!(session_thread_level(&info("MPI_THREAD_FUNNELED"), 2), 2);
    }

    #[test]
    fn process_sets_by_name_without_case() {
        assert_eq!(ProcessSet::named("mpi://self"), Ok(ProcessSet::OneSelf));
        assert_eq!(ProcessSet::named("MPI://World"), Ok(ProcessSet::World));
        assert_eq!(ProcessSet::named("mpi://NODE"), Err(MpiError::Arg));
        assert_eq!(ProcessSet::World.members(2, (0, 4)), vec![0, 1, 2, 3]);
        assert_eq!(ProcessSet::OneSelf.members(2, (0, 4)), vec![2]);
    }

    #[test]
    fn string_tags_stay_within_the_tag_bound() {
        assert_eq!(string_tag("tag", i32::MAX), string_tag("tag", i32::MAX));
        assert_ne!(
            string_tag("thread 1", i32::MAX),
            string_tag("thread 3", i32::MAX)
        );
        for t in ["", "a", "org.mpi-forum.mpi-v4_0.example-ex10_8"] {
            assert!((0..=32767).contains(&string_tag(t, 32767)));
        }
    }

    #[test]
    fn sessions_keep_their_level_handler_and_psets() {
        let out = run_world(3, 1 << 16, |e| {
            let multiple = e
                .session_init(&Pairs::new(), ErrhandlerId::RETURN, 0)
                .unwrap();
            let info = vec![(
                THREAD_LEVEL_KEY.to_string(),
                "MPI_THREAD_FUNNELED".to_string(),
            )];
            let funneled = e.session_init(&info, ErrhandlerId::FATAL, 0).unwrap();
            assert_ne!(multiple, funneled);
            assert_eq!(e.sessions_open(), 2);
            assert_eq!(
                e.session_info(multiple).unwrap(),
                vec![("thread_level".into(), "MPI_THREAD_MULTIPLE".into())]
            );
            assert_eq!(e.session(funneled).unwrap().thread_level, 1);
            assert_eq!(e.session_num_psets(multiple), Ok(2));
            assert_eq!(e.session_nth_pset(multiple, 0), Ok("mpi://WORLD"));
            assert_eq!(e.session_nth_pset(multiple, 1), Ok("mpi://SELF"));
            assert_eq!(e.session_nth_pset(multiple, 2), Err(MpiError::Arg));
            assert_eq!(
                e.session_pset_info(multiple, "mpi://world").unwrap(),
                vec![("mpi_size".into(), "3".into())]
            );
            let selfg = e.group_from_session_pset(funneled, "mpi://SELF").unwrap();
            assert_eq!(e.group(selfg).unwrap().ranks, vec![e.rank()]);
            assert!(matches!(
                e.session_error_handling(multiple),
                Some(ErrorAction::Return)
            ));
            e.session_set_errhandler(multiple, ErrhandlerId::FATAL)
                .unwrap();
            assert!(matches!(
                e.session_error_handling(multiple),
                Some(ErrorAction::Abort)
            ));
            assert_eq!(e.session_get_errhandler(multiple), Ok(ErrhandlerId::FATAL));
            e.session_finalize(funneled).unwrap();
            assert_eq!(e.session_finalize(funneled), Err(MpiError::Session));
            assert_eq!(e.session_num_psets(funneled), Err(MpiError::Session));
            e.session_finalize(multiple).unwrap();
            e.sessions_open()
        });
        assert_eq!(out, vec![0, 0, 0]);
    }

    #[test]
    fn a_created_handler_lives_while_a_session_uses_it() {
        run_world(1, 1 << 16, |e| {
            let h = e.errhandler_create(crate::Opaque::new(7u32));
            let s = e.session_init(&Pairs::new(), h, 0).unwrap();
            e.errhandler_free(h).unwrap();
            assert!(matches!(
                e.session_error_handling(s),
                Some(ErrorAction::Call(_))
            ));
            e.session_finalize(s).unwrap();
            assert_eq!(e.errhandler_action(h).err(), Some(MpiError::Arg));
        });
    }

    /// Every rank makes a communicator of the world process set and one of
    /// the odd ranks, then an intercommunicator between even and odd ranks;
    /// a sum over each shows who is in it.
    #[test]
    fn communicators_from_process_set_groups() {
        let out = run_world(4, 1 << 16, |e| {
            let s = e
                .session_init(&Pairs::new(), ErrhandlerId::RETURN, 0)
                .unwrap();
            let world = e.group_from_session_pset(s, "mpi://WORLD").unwrap();
            let c = e.comm_create_from_group(world, "all").unwrap();
            assert_eq!(
                (e.comm_size(c).unwrap(), e.comm_rank(c).unwrap()),
                (4, e.rank())
            );
            let odd = e.group_incl(world, &[1, 3]).unwrap();
            let even = e.group_incl(world, &[0, 2]).unwrap();
            let (mine, theirs) = if e.rank() % 2 == 1 {
                (odd, even)
            } else {
                (even, odd)
            };
            let sub = e.comm_create_from_group(mine, "half").unwrap();
            assert_eq!(e.comm_size(sub), Ok(2));
            assert_eq!(e.comm_rank(sub), Ok(e.rank() / 2));
            let inter = e
                .intercomm_create_from_groups(mine, 0, theirs, 0, "inter")
                .unwrap();
            assert_eq!(e.comm_test_inter(inter), Ok(true));
            assert_eq!(e.comm_remote_size(inter), Ok(2));
            let remote = e.comm_remote_group(inter).unwrap();
            let remote_ranks = e.group(remote).unwrap().ranks.clone();
            for comm in [sub, c, inter] {
                e.comm_free(comm).unwrap();
            }
            e.session_finalize(s).unwrap();
            remote_ranks
        });
        assert_eq!(out, vec![vec![1, 3], vec![0, 2], vec![1, 3], vec![0, 2]]);
    }
}
