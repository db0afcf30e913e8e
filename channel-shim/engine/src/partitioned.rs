//! MPI 4.0 partitioned communication: `MPI_Psend_init` / `MPI_Precv_init`
//! make persistent requests whose buffer is cut into partitions; after
//! `MPI_Start`, each `MPI_Pready` sends one send partition as messages of
//! its own (so the network sees a partition leave as soon as the program
//! has it ready), and `MPI_Parrived` tells the receiver whether one of its
//! partitions is in. The two sides may cut the same bytes into different
//! numbers of partitions.
//!
//! # On the wire
//! A partition travels, in pieces of at most [`PIECE_BYTES`] packed bytes,
//! as ordinary messages on the communicator's collective context with tag
//! [`PARTITION_TAG`] (no program receive can match them, not even one with
//! `MPI_ANY_TAG`, and no collective uses a negative tag) and call code
//! `MPI_Pready`. Each payload starts with a [`HEADER_BYTES`]-byte header:
//! the channel (u32: the how-many-th init call with this peer, tag and
//! communicator it answers, which is how MPI matches partitioned requests),
//! the program's tag (i32) and the piece's offset in the packed buffer
//! (u64), all little-endian; the packed bytes follow. The receiver keeps
//! one hidden receive posted per communicator and peer with a partitioned
//! request, and routes each piece to its request, or keeps it until that
//! request is started when it arrives early (the sender's next round may
//! start before the receiver's does).

use crate::comm::CommId;
use crate::datatype::{pack_range, unpack_range, DatatypeId};
use crate::envelope::CallCode;
use crate::error::{MpiError, MpiResult};
use crate::matching::{Source, Tag};
use crate::message_data::{MessageData, UserBuffer};
use crate::request::{Dest, Pending, Persist, Request, RequestId, SendMode, State};
use crate::status::{Completion, Status};
use crate::transport::Transport;
use crate::Engine;
use std::collections::HashMap;

/// The tag of partition messages on the collective context.
pub const PARTITION_TAG: i32 = i32::MIN;
/// Largest piece of a partition one message carries, packed bytes.
pub const PIECE_BYTES: u64 = 1 << 20;
/// Bytes of the header before a piece's data.
pub const HEADER_BYTES: usize = 16;

/// What a partitioned request was made with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PartSpec {
    /// A send (`MPI_Psend_init`) or a receive.
    pub send: bool,
    pub partitions: usize,
    /// Instances of `dt` per partition.
    pub count: usize,
    pub dt: DatatypeId,
    /// The peer's rank in `comm` (None: `MPI_PROC_NULL`).
    pub peer: Option<u32>,
    pub tag: i32,
    pub comm: CommId,
    /// Which init call with this peer, tag and communicator it is.
    pub channel: u32,
}

impl PartSpec {
    /// Instances in the whole buffer.
    pub fn total_count(&self) -> usize {
        self.partitions * self.count
    }
}

/// Who a partitioned request talks to: (communicator, peer world rank,
/// tag, channel, is a send).
type PartKey = (CommId, u32, i32, u32, bool);

/// The current round of a started (or once started) request.
struct Round {
    req: RequestId,
    mem: Option<Box<dyn UserBuffer>>,
    /// Offset of the buffer region's first byte from the buffer address.
    base: i64,
    /// Packed bytes of one of its partitions.
    partition_bytes: u64,
    /// Send: partitions marked ready this round.
    ready: Vec<bool>,
    /// Send: the hidden sends of this round's pieces.
    sends: Vec<RequestId>,
    /// Receive: packed bytes arrived per partition this round.
    arrived: Vec<u64>,
    arrived_total: u64,
    /// Receive: pieces (offset, bytes) that arrived before the round began.
    early: Vec<(u64, Vec<u8>)>,
}

/// The partitioned requests of one process.
#[derive(Default)]
pub(crate) struct Partitioned {
    rounds: HashMap<PartKey, Round>,
    /// Init calls so far per (communicator, peer world rank, tag, is a send).
    channels: HashMap<(CommId, u32, i32, bool), u32>,
    /// The hidden receive per (communicator, peer world rank) and how many
    /// receive requests use it.
    demux: HashMap<(CommId, u32), (RequestId, u32)>,
    /// Pieces for receive requests not made yet (the sender's init call
    /// and first round may come before the receiver's init call).
    orphans: HashMap<PartKey, Vec<(u64, Vec<u8>)>>,
}

impl<T: Transport> Engine<T> {
    /// `MPI_Psend_init` (`send`) or `MPI_Precv_init`: `partitions` of
    /// `count` instances of `dt`, to or from rank `peer` of `comm`.
    #[allow(clippy::too_many_arguments)]
    pub fn partitioned_init(
        &mut self,
        send: bool,
        partitions: usize,
        count: usize,
        dt: DatatypeId,
        peer: Dest,
        tag: i32,
        comm: CommId,
    ) -> MpiResult<RequestId> {
        self.note_call();
        self.check_tag(tag)?;
        if partitions == 0 {
            return Err(MpiError::Arg);
        }
        let size = self.types.committed(dt)?.size;
        size.checked_mul((partitions as u64).saturating_mul(count as u64))
            .ok_or(MpiError::Count)?;
        let peer = match peer {
            Dest::ProcNull => None,
            Dest::Rank(r) => Some(r),
        };
        let peer_world = match peer {
            Some(r) => Some(self.comm(comm)?.world_of(r)?),
            None => None,
        };
        let channel = match peer_world {
            Some(w) => {
                let n = self.part.channels.entry((comm, w, tag, send)).or_insert(0);
                *n += 1;
                *n - 1
            }
            None => 0,
        };
        let spec = PartSpec {
            send,
            partitions,
            count,
            dt,
            peer,
            tag,
            comm,
            channel,
        };
        if let (false, Some(w)) = (send, peer_world) {
            self.demux_attach(comm, w)?;
        }
        let mut r = Request::new(State::Inactive);
        r.persistent = Some(Persist::Partitioned(spec.clone()));
        r.comm = Some(comm);
        self.types.add_use(dt);
        let req = self.reqs.add(r);
        if let Some(w) = peer_world {
            let partition_bytes = size * count as u64;
            let key = (comm, w, tag, channel, send);
            let early = self.part.orphans.remove(&key).unwrap_or_default();
            self.part.rounds.insert(
                key,
                Round {
                    req,
                    mem: None,
                    base: 0,
                    partition_bytes,
                    ready: vec![false; if send { partitions } else { 0 }],
                    sends: Vec::new(),
                    arrived: vec![0; if send { 0 } else { partitions }],
                    arrived_total: 0,
                    early,
                },
            );
        }
        Ok(req)
    }

    /// The key of a partitioned request's round (None: `MPI_PROC_NULL`).
    fn part_key(&self, spec: &PartSpec) -> MpiResult<Option<PartKey>> {
        let Some(peer) = spec.peer else {
            return Ok(None);
        };
        let w = self.comm(spec.comm)?.world_of(peer)?;
        Ok(Some((spec.comm, w, spec.tag, spec.channel, spec.send)))
    }

    fn part_spec(&self, req: RequestId) -> MpiResult<PartSpec> {
        match &self.reqs.get(req)?.persistent {
            Some(Persist::Partitioned(s)) => Ok(s.clone()),
            _ => Err(MpiError::Request),
        }
    }

    /// `MPI_Start` of a partitioned request, with its buffer.
    pub(crate) fn partitioned_start(
        &mut self,
        req: RequestId,
        spec: &PartSpec,
        mem: Box<dyn UserBuffer>,
    ) -> MpiResult<()> {
        let Some(key) = self.part_key(spec)? else {
            self.finish(req, Completion::inactive());
            return Ok(());
        };
        let base = self.types.span(spec.dt, spec.total_count())?.base;
        let round = self.part.rounds.get_mut(&key).ok_or(MpiError::Request)?;
        round.mem = Some(mem);
        round.base = base;
        round.ready.iter_mut().for_each(|r| *r = false);
        round.sends.clear();
        round.arrived.iter_mut().for_each(|a| *a = 0);
        round.arrived_total = 0;
        let early = std::mem::take(&mut round.early);
        self.reqs.get_mut(req)?.state = State::Pending(Pending::Partitioned);
        // In arrival order: the pieces beyond this round's bytes belong to
        // the next rounds and are kept again.
        for (offset, piece) in early {
            self.part_store(&key, spec, offset, &piece)?;
        }
        self.advance_partitioned();
        Ok(())
    }

    /// `MPI_Pready`, `MPI_Pready_range`, `MPI_Pready_list`: sends the
    /// given partitions of started send `req`.
    pub fn pready(&mut self, req: RequestId, partitions: &[usize]) -> MpiResult<()> {
        self.note_call();
        let spec = self.part_spec(req)?;
        if !spec.send {
            return Err(MpiError::Request);
        }
        if partitions.iter().any(|&p| p >= spec.partitions) {
            return Err(MpiError::Arg);
        }
        if partitions.is_empty() {
            return Ok(());
        }
        let active = matches!(self.reqs.get(req)?.state, State::Pending(_));
        let Some(key) = self.part_key(&spec)? else {
            return if active {
                Ok(())
            } else {
                Err(MpiError::Request)
            };
        };
        if !active {
            return Err(MpiError::Request);
        }
        let info = self.types.info(spec.dt)?.clone();
        let total = spec.total_count();
        let (comm, dst) = (spec.comm, spec.peer.ok_or(MpiError::Request)?);
        let context = self.comm(comm)?.send_coll_context();
        for &p in partitions {
            let round = self.part.rounds.get_mut(&key).ok_or(MpiError::Request)?;
            if std::mem::replace(&mut round.ready[p], true) {
                return Err(MpiError::Arg);
            }
            let (start, end) = (
                p as u64 * round.partition_bytes,
                (p as u64 + 1) * round.partition_bytes,
            );
            let mut pieces = Vec::new();
            let mut offset = start;
            while offset < end {
                let len = (end - offset).min(PIECE_BYTES);
                let mut bytes = Vec::with_capacity(HEADER_BYTES + len as usize);
                bytes.extend_from_slice(&spec.channel.to_le_bytes());
                bytes.extend_from_slice(&spec.tag.to_le_bytes());
                bytes.extend_from_slice(&offset.to_le_bytes());
                let mem = round.mem.as_ref().ok_or(MpiError::Request)?;
                pack_range(
                    &info,
                    total,
                    mem.bytes(),
                    round.base,
                    offset,
                    len as usize,
                    &mut bytes,
                )?;
                pieces.push(bytes);
                offset += len;
            }
            for bytes in pieces {
                let data = MessageData::from(bytes);
                let s = self.isend_packed(
                    SendMode::Standard,
                    data,
                    Dest::Rank(dst),
                    PARTITION_TAG,
                    comm,
                    context,
                    CallCode::Pready,
                    None,
                )?;
                if let Some(round) = self.part.rounds.get_mut(&key) {
                    round.sends.push(s);
                }
            }
        }
        self.advance_partitioned();
        Ok(())
    }

    /// `MPI_Parrived`: whether partition `partition` of receive `req` is in.
    pub fn parrived(&mut self, req: RequestId, partition: usize) -> MpiResult<bool> {
        self.note_call();
        let spec = self.part_spec(req)?;
        if spec.send {
            return Err(MpiError::Request);
        }
        if partition >= spec.partitions {
            return Err(MpiError::Arg);
        }
        self.progress(false);
        match self.reqs.get(req)?.state {
            State::Inactive => Err(MpiError::Request),
            State::Done(_) => Ok(true),
            State::Pending(_) => {
                let Some(key) = self.part_key(&spec)? else {
                    return Ok(true);
                };
                let round = self.part.rounds.get(&key).ok_or(MpiError::Request)?;
                Ok(round.arrived[partition] >= round.partition_bytes)
            }
        }
    }

    /// Posts the hidden receive for partition messages from world rank
    /// `src` on `comm` unless one is posted; counts one more user.
    fn demux_attach(&mut self, comm: CommId, src: u32) -> MpiResult<()> {
        if let Some((_, users)) = self.part.demux.get_mut(&(comm, src)) {
            *users += 1;
            return Ok(());
        }
        let r = self.post_demux(comm, src)?;
        self.part.demux.insert((comm, src), (r, 1));
        Ok(())
    }

    fn post_demux(&mut self, comm: CommId, src: u32) -> MpiResult<RequestId> {
        let c = self.comm(comm)?;
        let context = c.coll_context();
        let rank = c.rank_of_world(src).ok_or(MpiError::Rank)?;
        self.irecv_raw(
            PIECE_BYTES + HEADER_BYTES as u64,
            Source::Rank(rank),
            Tag::Value(PARTITION_TAG),
            comm,
            context,
            None,
            MessageData::default(),
        )
    }

    /// Stores piece (`offset`, `bytes`) of round `key`, or keeps it for the
    /// round's start.
    fn part_store(
        &mut self,
        key: &PartKey,
        spec: &PartSpec,
        offset: u64,
        piece: &[u8],
    ) -> MpiResult<()> {
        let info = self.types.info(spec.dt)?.clone();
        let round = self.part.rounds.get_mut(key).ok_or(MpiError::Request)?;
        let active = matches!(self.reqs.get(round.req)?.state, State::Pending(_));
        let full = round.arrived_total >= round.partition_bytes * spec.partitions as u64;
        if !active || full {
            // A piece of a round not started yet.
            round.early.push((offset, piece.to_vec()));
            return Ok(());
        }
        let mem = round.mem.as_mut().ok_or(MpiError::Request)?;
        unpack_range(
            &info,
            spec.total_count(),
            mem.bytes_mut(),
            round.base,
            offset,
            piece,
        )?;
        // Credit each receive partition the piece overlaps.
        let (end, size) = (offset + piece.len() as u64, round.partition_bytes.max(1));
        let mut at = offset;
        while at < end {
            let p = (at / size) as usize;
            let upto = ((p as u64 + 1) * size).min(end);
            if let Some(a) = round.arrived.get_mut(p) {
                *a += upto - at;
            }
            at = upto;
        }
        round.arrived_total += piece.len() as u64;
        Ok(())
    }

    /// Routes arrived partition messages and completes the rounds that are
    /// over; run after every progress step that handled a message.
    pub(crate) fn advance_partitioned(&mut self) {
        if self.part.rounds.is_empty() {
            return;
        }
        // A reposted receive may match a piece waiting in the unexpected
        // queue at once: go round until none completes.
        while self.route_partition_pieces() {}
        self.complete_partitioned_rounds();
    }

    /// Takes the pieces the hidden receives got, posts them again, and
    /// stores each piece; returns whether there was one.
    fn route_partition_pieces(&mut self) -> bool {
        let mut any = false;
        let demuxed: Vec<_> = self.part.demux.iter().map(|(&k, &(r, _))| (k, r)).collect();
        for ((comm, src), r) in demuxed {
            let Ok(Some(c)) = self.take_completion(r) else {
                continue;
            };
            any = true;
            match self.post_demux(comm, src) {
                Ok(next) => {
                    if let Some(d) = self.part.demux.get_mut(&(comm, src)) {
                        d.0 = next;
                    }
                }
                Err(_) => {
                    self.part.demux.remove(&(comm, src));
                }
            }
            let bytes = c.data.unwrap_or_default();
            if bytes.len() < HEADER_BYTES {
                self.counters.bad_messages += 1;
                continue;
            }
            let channel = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
            let tag = i32::from_le_bytes(bytes[4..8].try_into().unwrap());
            let offset = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
            let key = (comm, src, tag, channel, false);
            let spec = match self.part.rounds.get(&key).map(|r| r.req) {
                Some(req) => self.part_spec(req),
                None => {
                    let piece = (offset, bytes[HEADER_BYTES..].to_vec());
                    self.part.orphans.entry(key).or_default().push(piece);
                    continue;
                }
            };
            let stored =
                spec.and_then(|s| self.part_store(&key, &s, offset, &bytes[HEADER_BYTES..]));
            if stored.is_err() {
                self.counters.bad_messages += 1;
            }
        }
        any
    }

    /// Completes the started rounds that are over: a send's when every
    /// partition was readied and its pieces sent, a receive's when every
    /// byte arrived.
    fn complete_partitioned_rounds(&mut self) {
        let over: Vec<(RequestId, Completion, Vec<RequestId>)> = self
            .part
            .rounds
            .iter()
            .filter_map(|(key, round)| {
                let r = self.reqs.get(round.req).ok()?;
                if !matches!(r.state, State::Pending(Pending::Partitioned)) {
                    return None;
                }
                let Some(Persist::Partitioned(spec)) = &r.persistent else {
                    return None;
                };
                if key.4 {
                    let all_ready = round.ready.iter().all(|&r| r);
                    let all_sent = round
                        .sends
                        .iter()
                        .all(|&s| self.is_complete(s).unwrap_or(true));
                    (all_ready && all_sent)
                        .then(|| (round.req, Completion::inactive(), round.sends.clone()))
                } else {
                    let total = round.partition_bytes * spec.partitions as u64;
                    (round.arrived_total >= total).then(|| {
                        let status = Status {
                            source: Source::Rank(spec.peer.unwrap_or(0)),
                            tag: Tag::Value(spec.tag),
                            error: None,
                            count_bytes: total,
                            cancelled: false,
                        };
                        let mut c = Completion::inactive();
                        c.status = status;
                        (round.req, c, Vec::new())
                    })
                }
            })
            .collect();
        for (req, c, sends) in over {
            for s in sends {
                let _ = self.take_completion(s);
            }
            if let Some(round) = self.part.rounds.values_mut().find(|r| r.req == req) {
                round.sends.clear();
                round.mem = None;
            }
            self.finish(req, c);
        }
    }

    /// A partitioned request leaves the table: forgets its round and lets
    /// go of the hidden receive it used.
    pub(crate) fn partitioned_retire(&mut self, spec: &PartSpec) {
        let Ok(Some(key)) = self.part_key(spec) else {
            return;
        };
        self.part.rounds.remove(&key);
        if spec.send {
            return;
        }
        let (comm, src) = (key.0, key.1);
        if let Some((r, users)) = self.part.demux.get_mut(&(comm, src)) {
            *users -= 1;
            if *users == 0 {
                let r = *r;
                self.part.demux.remove(&(comm, src));
                self.cancel_recv(r);
                let _ = self.take_completion(r);
            }
        }
    }
}

#[cfg(test)]
#[path = "partitioned_tests.rs"]
mod tests;
