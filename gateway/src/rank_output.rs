//! The ranks' standard output and error, forwarded line by line by one
//! thread: every line a rank prints reaches mpinetsim's stdout or stderr
//! (or the output file) whole, never cut by another rank's line, as
//! Debian's hydra `mpiexec` forwards it. Each rank writes into pipes of
//! its own; the thread waits on all of them (epoll) and writes complete
//! lines with one write each, optionally after a `[rank] ` prefix.
//!
//! A line longer than [`MAX_LINE_BYTES`] is forwarded in pieces of that
//! size (memory stays bounded); a last line without a newline is forwarded
//! as it is when the rank closes its output (with a newline added after a
//! prefix, so the next prefixed line starts on a line of its own).

use crate::error::Error;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest line kept whole; longer ones go out in pieces of this size.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Token of the waker (new streams, or the end of the job).
const WAKE: Token = Token(usize::MAX);

/// Where one stream's lines go.
#[derive(Clone, Debug)]
pub enum Target {
    /// mpinetsim's standard output.
    Stdout,
    /// mpinetsim's standard error.
    Stderr,
    /// A file shared by every stream (calibration's `ranks.log`).
    File(Arc<Mutex<File>>),
}

impl Target {
    fn write(&self, bytes: &[u8]) {
        // A closed stdout (`| head`) is not the job's problem: the bytes
        // are dropped and the ranks go on.
        let _ = match self {
            Target::Stdout => {
                let mut o = std::io::stdout().lock();
                o.write_all(bytes).and_then(|()| o.flush())
            }
            Target::Stderr => std::io::stderr().lock().write_all(bytes),
            Target::File(f) => f.lock().unwrap_or_else(|p| p.into_inner()).write_all(bytes),
        };
    }
}

/// One rank's stdout or stderr, as the forwarder reads it.
struct Stream {
    pipe: File,
    prefix: Vec<u8>,
    target: Target,
    /// Bytes read after the last complete line.
    pending: Vec<u8>,
    /// The next byte written starts a line (gets the prefix).
    at_line_start: bool,
}

impl Stream {
    /// Writes the complete lines in `pending` (and, at the end or when a
    /// line is too long, the rest) in one write.
    fn emit(&mut self, all: bool) {
        let whole = match self.pending.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            None => 0,
        };
        let cut = if all || self.pending.len() - whole >= MAX_LINE_BYTES {
            self.pending.len()
        } else {
            whole
        };
        if cut == 0 {
            return;
        }
        let mut out = Vec::with_capacity(cut + self.prefix.len() * 8);
        for piece in self.pending[..cut].split_inclusive(|&b| b == b'\n') {
            if self.at_line_start {
                out.extend_from_slice(&self.prefix);
            }
            out.extend_from_slice(piece);
            self.at_line_start = piece.ends_with(b"\n");
        }
        if all && !self.at_line_start && !self.prefix.is_empty() {
            out.push(b'\n');
            self.at_line_start = true;
        }
        self.target.write(&out);
        self.pending.drain(..cut);
    }

    /// Reads what the pipe holds; true at end of stream.
    fn read_available(&mut self) -> bool {
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match self.pipe.read(&mut chunk) {
                Ok(0) => return true,
                Ok(n) => {
                    self.pending.extend_from_slice(&chunk[..n]);
                    self.emit(false);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return true,
            }
        }
    }
}

/// State shared between the job and the forwarding thread.
struct Shared {
    added: Mutex<Vec<Stream>>,
    /// Streams added and not yet at their end.
    open: AtomicUsize,
    ending: AtomicBool,
}

/// The forwarding thread.
pub struct OutputForwarder {
    shared: Arc<Shared>,
    waker: Arc<Waker>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The forwarder's end of a pipe a rank writes into.
pub struct PipeReader(OwnedFd);

/// A pipe for one stream of one rank (close-on-exec; only the reading end
/// non-blocking): the end to give the process, and the forwarder's end.
pub fn rank_pipe() -> Result<(OwnedFd, PipeReader), Error> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let (read_end, write_end) = nix::unistd::pipe2(OFlag::O_CLOEXEC)
        .map_err(|e| Error::internal(format!("cannot create a pipe for the ranks' output: {e}")))?;
    fcntl(read_end.as_raw_fd(), FcntlArg::F_SETFL(OFlag::O_NONBLOCK))
        .map_err(|e| Error::internal(format!("cannot set up a pipe for the ranks' output: {e}")))?;
    Ok((write_end, PipeReader(read_end)))
}

impl OutputForwarder {
    /// Starts the thread; one sentence when it cannot be started.
    pub fn start() -> Result<OutputForwarder, Error> {
        let poll = Poll::new()
            .map_err(|e| Error::internal(format!("cannot forward the ranks' output: {e}")))?;
        let waker = Arc::new(
            Waker::new(poll.registry(), WAKE)
                .map_err(|e| Error::internal(format!("cannot forward the ranks' output: {e}")))?,
        );
        let shared = Arc::new(Shared {
            added: Mutex::new(Vec::new()),
            open: AtomicUsize::new(0),
            ending: AtomicBool::new(false),
        });
        let for_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("rank-output".into())
            .spawn(move || forward(poll, &for_thread))
            .map_err(|e| {
                Error::internal(format!("cannot start the thread that forwards the ranks' output: {e}; free some memory or lower the number of ranks"))
            })?;
        Ok(OutputForwarder {
            shared,
            waker,
            thread: Some(thread),
        })
    }

    /// Forwards the pipe's lines to `target`, each after `prefix`.
    pub fn add(&self, pipe: PipeReader, prefix: Vec<u8>, target: Target) {
        let stream = Stream {
            pipe: File::from(pipe.0),
            prefix,
            target,
            pending: Vec::new(),
            at_line_start: true,
        };
        self.shared
            .added
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(stream);
        self.shared.open.fetch_add(1, Ordering::SeqCst);
        let _ = self.waker.wake();
    }

    /// Waits until every stream has ended, or `grace` has passed (a
    /// process the rank started in another session may hold a pipe open);
    /// then forwards what was read and stops.
    pub fn finish(mut self, grace: Duration) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        let deadline = Instant::now() + grace;
        while self.shared.open.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.shared.ending.store(true, Ordering::SeqCst);
        let _ = self.waker.wake();
        let _ = thread.join();
    }
}

impl Drop for OutputForwarder {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.shared.ending.store(true, Ordering::SeqCst);
            let _ = self.waker.wake();
            let _ = thread.join();
        }
    }
}

/// The thread: forwards until every stream ended (once the job said no
/// more will come) or the job ends it.
fn forward(mut poll: Poll, shared: &Shared) {
    let mut streams: Vec<Option<Stream>> = Vec::new();
    let mut events = Events::with_capacity(256);
    loop {
        let added: Vec<Stream> =
            std::mem::take(&mut *shared.added.lock().unwrap_or_else(|p| p.into_inner()));
        for s in added {
            let token = Token(streams.len());
            let fd = s.pipe.as_raw_fd();
            if poll
                .registry()
                .register(&mut SourceFd(&fd), token, Interest::READABLE)
                .is_ok()
            {
                streams.push(Some(s));
            }
        }
        if shared.ending.load(Ordering::SeqCst) {
            // Last pass: what the pipes hold now, then the partial lines.
            for s in streams.iter_mut().flatten() {
                s.read_available();
                s.emit(true);
            }
            return;
        }
        if let Err(e) = poll.poll(&mut events, None) {
            if e.kind() == ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        for ev in events.iter() {
            if ev.token() == WAKE {
                continue;
            }
            let i = ev.token().0;
            let Some(s) = streams.get_mut(i).and_then(Option::as_mut) else {
                continue;
            };
            if s.read_available() {
                s.emit(true);
                let fd = s.pipe.as_raw_fd();
                let _ = poll.registry().deregister(&mut SourceFd(&fd));
                streams[i] = None;
                shared.open.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target_file() -> (tempfile::NamedTempFile, Target) {
        let f = tempfile::NamedTempFile::new().unwrap();
        let t = Target::File(Arc::new(Mutex::new(f.reopen().unwrap())));
        (f, t)
    }

    #[test]
    fn lines_of_many_writers_arrive_whole_and_prefixed() {
        let (file, target) = target_file();
        let fw = OutputForwarder::start().unwrap();
        let mut writers = Vec::new();
        for rank in 0..8 {
            let (w, pipe) = rank_pipe().unwrap();
            let w = File::from(w);
            fw.add(pipe, format!("[{rank}] ").into_bytes(), target.clone());
            writers.push(std::thread::spawn(move || {
                let mut w = w;
                // Lines written in odd pieces: a writer's line may arrive
                // in several reads.
                for i in 0..2000 {
                    let line = format!("rank {rank} line {i} {}\n", "x".repeat(i % 300));
                    let (a, b) = line.as_bytes().split_at(line.len() / 3);
                    w.write_all(a).unwrap();
                    w.write_all(b).unwrap();
                }
            }));
        }
        for w in writers {
            w.join().unwrap();
        }
        fw.finish(Duration::from_secs(5));
        let text = std::fs::read_to_string(file.path()).unwrap();
        let mut count = 0;
        for l in text.lines() {
            let (prefix, rest) = l.split_once("] ").unwrap();
            let rank: u32 = prefix[1..].parse().unwrap();
            let mut f = rest.split(' ');
            assert_eq!(f.next(), Some("rank"));
            assert_eq!(f.next(), Some(rank.to_string().as_str()), "{l}");
            assert_eq!(f.next(), Some("line"));
            let i: usize = f.next().unwrap().parse().unwrap();
            assert_eq!(f.next().unwrap_or(""), "x".repeat(i % 300), "{l}");
            count += 1;
        }
        assert_eq!(count, 8 * 2000);
    }

    #[test]
    fn a_last_line_without_newline_and_a_huge_line_are_forwarded() {
        let (file, target) = target_file();
        let fw = OutputForwarder::start().unwrap();
        let (w, pipe) = rank_pipe().unwrap();
        let mut w = File::from(w);
        fw.add(pipe, b"[0] ".to_vec(), target.clone());
        let huge = vec![b'y'; MAX_LINE_BYTES + 10];
        w.write_all(&huge).unwrap();
        w.write_all(b"\nno newline").unwrap();
        drop(w);
        fw.finish(Duration::from_secs(5));
        let text = std::fs::read(file.path()).unwrap();
        let mut want = b"[0] ".to_vec();
        want.extend_from_slice(&huge);
        want.extend_from_slice(b"\n[0] no newline\n");
        assert_eq!(text, want);
    }

    #[test]
    fn a_pipe_held_open_elsewhere_does_not_stop_the_end() {
        let (_file, target) = target_file();
        let fw = OutputForwarder::start().unwrap();
        let (_held, pipe) = rank_pipe().unwrap();
        fw.add(pipe, Vec::new(), target);
        let t = Instant::now();
        fw.finish(Duration::from_millis(100));
        assert!(t.elapsed() < Duration::from_secs(2));
    }
}
