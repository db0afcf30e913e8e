//! Collective reads and writes by two-phase collective buffering (as
//! ROMIO does): the byte range every rank accesses is split into one
//! contiguous *file domain* per aggregator rank; in the communication
//! phase each rank sends the pieces of its request lying in a domain to
//! that domain's aggregator (through the network, an `MPI_Alltoallv` on
//! the file's private communicator); in the I/O phase each aggregator
//! accesses its domain in large contiguous requests. Reads run the same
//! exchange backwards: the requests go to the aggregators, the data comes
//! back.
//!
//! Aggregators: the hint `cb_nodes` (at most the communicator's size),
//! otherwise every rank; aggregator *a* is rank *a*.

use super::access::{read_segments, Position};
use super::amode;
use super::open::{BYTE, I64};
use super::view::FileSegment;
use super::FileId;
use crate::collectives::CollInput;
use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::error::MpiResult;
use crate::transport::Transport;
use crate::Engine;
use mpinetsim_protocol::storage::StorageOp;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// How the accessed byte range `lo..hi` is split among `aggregators`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Domains {
    /// First byte any rank accesses.
    pub lo: u64,
    /// Byte after the last one any rank accesses.
    pub hi: u64,
    /// Bytes per domain (the last may be shorter).
    pub size: u64,
    /// Number of aggregators.
    pub aggregators: u32,
}

impl Domains {
    /// Even domains of `lo..hi` for `aggregators` aggregators.
    pub fn new(lo: u64, hi: u64, aggregators: u32) -> Domains {
        let span = hi.saturating_sub(lo);
        Domains {
            lo,
            hi,
            size: span.div_ceil(u64::from(aggregators.max(1))).max(1),
            aggregators: aggregators.max(1),
        }
    }

    /// The aggregator whose domain holds byte `offset`.
    pub fn owner(&self, offset: u64) -> u32 {
        (((offset - self.lo) / self.size) as u32).min(self.aggregators - 1)
    }

    /// Splits `s` at domain boundaries: (aggregator, piece) in file order.
    pub fn split(&self, s: FileSegment) -> Vec<(u32, FileSegment)> {
        let mut out = Vec::new();
        let (mut off, end) = (s.offset, s.offset + s.len);
        while off < end {
            let a = self.owner(off);
            let domain_end = if a + 1 == self.aggregators {
                end
            } else {
                self.lo + u64::from(a + 1) * self.size
            };
            let n = domain_end.min(end) - off;
            out.push((
                a,
                FileSegment {
                    offset: off,
                    len: n,
                },
            ));
            off += n;
        }
        out
    }
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads `want` (sorted, non-overlapping or not) from `file` for an
/// aggregator: one read of their whole range when they cover most of it,
/// one read each otherwise. Returns each request's bytes (short at the end
/// of the file).
fn serve_reads(file: &File, want: &[FileSegment]) -> MpiResult<Vec<Vec<u8>>> {
    let Some(lo) = want.iter().map(|s| s.offset).min() else {
        return Ok(Vec::new());
    };
    let hi = want.iter().map(|s| s.offset + s.len).max().unwrap_or(lo);
    let asked: u64 = want.iter().map(|s| s.len).sum();
    if hi - lo <= asked.saturating_mul(2) {
        let mut buf = vec![0u8; (hi - lo) as usize];
        let got = read_segments(
            file,
            &[FileSegment {
                offset: lo,
                len: hi - lo,
            }],
            &mut buf,
        )? as u64;
        Ok(want
            .iter()
            .map(|s| {
                let from = (s.offset - lo).min(got) as usize;
                let to = (s.offset - lo + s.len).min(got) as usize;
                buf[from..to].to_vec()
            })
            .collect())
    } else {
        want.iter()
            .map(|s| {
                let mut b = vec![0u8; s.len as usize];
                let n = read_segments(file, &[*s], &mut b)?;
                b.truncate(n);
                Ok(b)
            })
            .collect()
    }
}

/// Writes `pieces` (sorted by offset; a later piece wins where they
/// overlap) in contiguous runs; returns the runs and, when `keep`, their
/// bytes one after the other (for a storage node's requests).
fn write_runs(
    file: &File,
    pieces: Vec<(u64, &[u8])>,
    keep: bool,
) -> MpiResult<(Vec<FileSegment>, Vec<u8>)> {
    let mut written = (Vec::new(), Vec::new());
    let mut flush = |run: &[u8], offset: u64| -> MpiResult<()> {
        file.write_all_at(run, offset)
            .map_err(|e| amode::io_error(&e))?;
        written.0.push(FileSegment {
            offset,
            len: run.len() as u64,
        });
        if keep {
            written.1.extend_from_slice(run);
        }
        Ok(())
    };
    let mut run: Vec<u8> = Vec::new();
    let mut run_start = 0u64;
    for (off, bytes) in pieces {
        let run_end = run_start + run.len() as u64;
        if !run.is_empty() && off <= run_end {
            let from = (off - run_start) as usize;
            let overlap = (run.len() - from).min(bytes.len());
            run[from..from + overlap].copy_from_slice(&bytes[..overlap]);
            run.extend_from_slice(&bytes[overlap..]);
        } else {
            if !run.is_empty() {
                flush(&run, run_start)?;
            }
            run.clear();
            run.extend_from_slice(bytes);
            run_start = off;
        }
    }
    if !run.is_empty() {
        flush(&run, run_start)?;
    }
    Ok(written)
}

impl<T: Transport> Engine<T> {
    /// Every rank's `(lo, hi)` combined, and the aggregators.
    fn io_domains(&mut self, id: FileId, segments: &[FileSegment]) -> MpiResult<Domains> {
        let f = self.files.get(id)?;
        let comm = f.comm;
        let n = self.comm_size(comm)?;
        let aggregators = f
            .hints
            .iter()
            .find(|h| h.0 == "cb_nodes")
            .and_then(|h| h.1.trim().parse::<u32>().ok())
            .filter(|&a| a > 0)
            .map_or(n, |a| a.min(n));
        let lo = segments.iter().map(|s| s.offset).min().unwrap_or(u64::MAX);
        let hi = segments.iter().map(|s| s.offset + s.len).max().unwrap_or(0);
        let mut mine = Vec::new();
        put_u64(&mut mine, lo);
        put_u64(&mut mine, hi);
        let all = self.allgather(CollInput::Buf(&mine), 16, BYTE, 16, BYTE, comm)?;
        let (mut glo, mut ghi) = (u64::MAX, 0);
        for r in all.chunks(16) {
            let (l, h) = (get_u64(r, 0), get_u64(r, 8));
            if l < h {
                glo = glo.min(l);
                ghi = ghi.max(h);
            }
        }
        if glo >= ghi {
            (glo, ghi) = (0, 0);
        }
        Ok(Domains::new(glo, ghi, aggregators))
    }

    /// Sends `blocks[r]` to rank `r` of `comm`; returns the block from each rank.
    fn io_exchange(&mut self, comm: CommId, blocks: &[Vec<u8>]) -> MpiResult<Vec<Vec<u8>>> {
        let n = blocks.len();
        let counts: Vec<u8> = blocks
            .iter()
            .flat_map(|b| (b.len() as i64).to_ne_bytes())
            .collect();
        let ones = vec![1usize; n];
        let displs: Vec<i64> = (0..n as i64).collect();
        let got = self.alltoallv(
            CollInput::Buf(&counts),
            &ones,
            &displs,
            I64,
            &ones,
            &displs,
            I64,
            comm,
        )?;
        let rcounts: Vec<usize> = got
            .iter()
            .map(|b| i64::from_ne_bytes(b[..8].try_into().expect("8 bytes")) as usize)
            .collect();
        let scounts: Vec<usize> = blocks.iter().map(Vec::len).collect();
        let mut sdispls = Vec::with_capacity(n);
        let mut rdispls = Vec::with_capacity(n);
        let (mut s, mut r) = (0i64, 0i64);
        for i in 0..n {
            sdispls.push(s);
            rdispls.push(r);
            s += scounts[i] as i64;
            r += rcounts[i] as i64;
        }
        let send = blocks.concat();
        self.alltoallv(
            CollInput::Buf(&send),
            &scounts,
            &sdispls,
            BYTE,
            &rcounts,
            &rdispls,
            BYTE,
            comm,
        )
    }

    /// `MPI_File_write_all` / `MPI_File_write_at_all` (collective).
    pub fn file_write_all(
        &mut self,
        id: FileId,
        pos: Position,
        region: &[u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let comm = self.files.get(id)?.comm;
        let local = (|| {
            let start = self.io_start(id, pos, true)?;
            let f = self.files.get(id)?;
            let data = self.io_pack(f.view.datarep, dt, count, region)?;
            let l = &f.view.layout;
            let segments = l.segments(start * l.etype_size, data.len() as u64);
            Ok((start, data, segments))
        })();
        let agreed = self.io_agree(comm, local.as_ref().map(drop).map_err(|e| *e));
        let (start, data, segments) = match (agreed, local) {
            (Ok(()), Ok(v)) => v,
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        let d = self.io_domains(id, &segments)?;
        let n = self.comm_size(comm)? as usize;
        let mut blocks = vec![Vec::new(); n];
        let mut used = 0usize;
        for s in &segments {
            for (a, p) in d.split(*s) {
                let b = &mut blocks[a as usize];
                put_u64(b, p.offset);
                put_u64(b, p.len);
                b.extend_from_slice(&data[used..used + p.len as usize]);
                used += p.len as usize;
            }
        }
        let got = self.io_exchange(comm, &blocks)?;
        let written = self.io_aggregate_writes(id, &got);
        self.io_agree(comm, written)?;
        self.io_advance(id, pos, start, data.len() as u64)?;
        Ok(self.types.size(dt)? * count as u64)
    }

    /// The I/O phase of a collective write: the pieces every rank sent,
    /// sorted by offset (a later rank's piece wins where they overlap),
    /// written in contiguous runs.
    fn io_aggregate_writes(&mut self, id: FileId, got: &[Vec<u8>]) -> MpiResult<()> {
        let mut pieces: Vec<(u64, &[u8])> = Vec::new();
        for b in got {
            let mut at = 0;
            while at < b.len() {
                let (off, len) = (get_u64(b, at), get_u64(b, at + 8) as usize);
                pieces.push((off, &b[at + 16..at + 16 + len]));
                at += 16 + len;
            }
        }
        pieces.sort_by_key(|p| p.0);
        let f = self.files.get(id)?;
        let (file, atomic) = (&f.file, self.files.atomic_lock(f));
        let keep = self.files.storage.is_some();
        let (segments, data) =
            super::access::atomically(file, atomic, true, || write_runs(file, pieces, keep))?;
        self.storage_access(StorageOp::Write, &segments, &data);
        Ok(())
    }

    /// `MPI_File_read_all` / `MPI_File_read_at_all` (collective); returns
    /// the memory bytes read.
    pub fn file_read_all(
        &mut self,
        id: FileId,
        pos: Position,
        region: &mut [u8],
        count: usize,
        dt: DatatypeId,
    ) -> MpiResult<u64> {
        self.note_call();
        let comm = self.files.get(id)?.comm;
        let local = (|| {
            let start = self.io_start(id, pos, false)?;
            let f = self.files.get(id)?;
            let rep = f.view.datarep;
            let want = self.io_file_bytes(rep, dt, count)?;
            let l = &f.view.layout;
            Ok((start, rep, l.segments(start * l.etype_size, want)))
        })();
        let agreed = self.io_agree(comm, local.as_ref().map(drop).map_err(|e| *e));
        let (start, rep, segments) = match (agreed, local) {
            (Ok(()), Ok(v)) => v,
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        let d = self.io_domains(id, &segments)?;
        let n = self.comm_size(comm)? as usize;
        let mut asks = vec![Vec::new(); n];
        let mut order = Vec::new();
        for s in &segments {
            for (a, p) in d.split(*s) {
                put_u64(&mut asks[a as usize], p.offset);
                put_u64(&mut asks[a as usize], p.len);
                order.push((a as usize, p.len as usize));
            }
        }
        let requests = self.io_exchange(comm, &asks)?;
        // The I/O phase: serve every rank's requests from this domain.
        let served = (|| {
            let want: Vec<Vec<FileSegment>> = requests
                .iter()
                .map(|b| {
                    b.chunks(16)
                        .map(|c| FileSegment {
                            offset: get_u64(c, 0),
                            len: get_u64(c, 8),
                        })
                        .collect()
                })
                .collect();
            let all: Vec<FileSegment> = want.iter().flatten().copied().collect();
            let f = self.files.get(id)?;
            let data =
                super::access::atomically(&f.file, self.files.atomic_lock(f), false, || {
                    serve_reads(&f.file, &all)
                })?;
            self.storage_access(StorageOp::Read, &all, &[]);
            let mut replies = vec![Vec::new(); n];
            let mut it = data.into_iter();
            for (r, w) in want.iter().enumerate() {
                for _ in w {
                    let piece = it.next().unwrap_or_default();
                    put_u64(&mut replies[r], piece.len() as u64);
                    replies[r].extend_from_slice(&piece);
                }
            }
            Ok(replies)
        })();
        let replies = match served {
            Ok(r) => r,
            Err(e) => {
                // Still take part in the exchange, then report.
                self.io_exchange(comm, &vec![Vec::new(); n])?;
                return self.io_agree(comm, Err(e)).map(|_| 0);
            }
        };
        let answers = self.io_exchange(comm, &replies)?;
        self.io_agree(comm, Ok(()))?;
        // Put the pieces back in stream order; the stream ends at the
        // first piece cut short by the end of the file.
        let mut cursor = vec![0usize; n];
        let mut data = Vec::new();
        for (a, len) in order {
            let b = &answers[a];
            let at = cursor[a];
            if at + 8 > b.len() {
                break;
            }
            let got = get_u64(b, at) as usize;
            data.extend_from_slice(&b[at + 8..at + 8 + got]);
            cursor[a] = at + 8 + got;
            if got < len {
                break;
            }
        }
        self.io_unpack(rep, dt, count, &data, region)?;
        self.io_advance(id, pos, start, data.len() as u64)?;
        self.io_memory_bytes(rep, dt, data.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_split_the_range_evenly() {
        let d = Domains::new(100, 200, 4);
        assert_eq!(d.size, 25);
        assert_eq!(d.owner(100), 0);
        assert_eq!(d.owner(124), 0);
        assert_eq!(d.owner(125), 1);
        assert_eq!(d.owner(199), 3);
        let s = FileSegment {
            offset: 120,
            len: 60,
        };
        let parts: Vec<(u32, u64, u64)> = d
            .split(s)
            .iter()
            .map(|(a, p)| (*a, p.offset, p.len))
            .collect();
        assert_eq!(
            parts,
            vec![(0, 120, 5), (1, 125, 25), (2, 150, 25), (3, 175, 5)]
        );
    }

    #[test]
    fn an_empty_range_has_one_domain_owner() {
        let d = Domains::new(0, 0, 3);
        assert_eq!(d.size, 1);
        assert!(d.split(FileSegment { offset: 0, len: 0 }).is_empty());
    }
}
