//! `MPI_Comm_spawn` between the shim and the gateway: what the spawning
//! root asks for ([`SpawnRequest`], carried by [`crate::Frame::Spawn`]),
//! and the environment the gateway gives the processes it starts.
//!
//! The gateway answers with [`crate::Frame::Spawned`]: the rank (network
//! endpoint) of the first new process; the new processes have consecutive
//! ranks, in the order of the request's commands. Their `MPI_COMM_WORLD`
//! is those ranks ([`ENV_WORLD`]); the spawning root's rank
//! ([`ENV_PARENT`]) is where their rank 0 meets it to build the
//! parent/child intercommunicator.

/// Environment variable of a spawned process: its `MPI_COMM_WORLD`, as
/// `FIRST:COUNT` (ranks FIRST to FIRST+COUNT−1 of the job's network).
pub const ENV_WORLD: &str = "MPINETSIM_WORLD";
/// Environment variable of a spawned process: the rank of the root of the
/// `MPI_Comm_spawn` that started it.
pub const ENV_PARENT: &str = "MPINETSIM_PARENT";
/// Environment variable of every rank: `MPI_UNIVERSE_SIZE`, the processes
/// the job may hold (`--universe`).
pub const ENV_UNIVERSE: &str = "MPINETSIM_UNIVERSE";
/// Environment variable of a spawned process: `MPI_APPNUM`, the index of
/// its command in `MPI_Comm_spawn_multiple` (0 for `MPI_Comm_spawn`).
pub const ENV_APPNUM: &str = "MPINETSIM_APPNUM";

/// Most commands one request carries (`MPI_Comm_spawn_multiple`'s count).
pub const MAX_COMMANDS: usize = 1024;
/// Most processes one request starts.
pub const MAX_PROCESSES: u32 = 4096;

/// One command of a spawn: a program, its arguments, how many copies, and
/// the info keys mpinetsim honours.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpawnCommand {
    /// The program, as `MPI_Comm_spawn`'s `command` names it.
    pub program: String,
    /// Its arguments (without the program name).
    pub args: Vec<String>,
    /// Processes to start (`maxprocs`).
    pub count: u32,
    /// Info key `host`: the simulated host to start them on.
    pub host: Option<String>,
    /// Info key `wdir`: their working directory.
    pub wdir: Option<String>,
    /// Info key `path`: folders to look for the program in (`:`-separated).
    pub path: Option<String>,
}

/// What the spawning root asks the gateway for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpawnRequest {
    /// The commands, in order (one for `MPI_Comm_spawn`).
    pub commands: Vec<SpawnCommand>,
}

impl SpawnRequest {
    /// Processes the request starts in all.
    pub fn processes(&self) -> u64 {
        self.commands.iter().map(|c| u64::from(c.count)).sum()
    }

    /// The request as bytes: per command its count, then the program, the
    /// info values (empty: not given) and the arguments, each string a
    /// little-endian `u32` length and its UTF-8 bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_u32(&mut out, self.commands.len() as u32);
        for c in &self.commands {
            put_u32(&mut out, c.count);
            put_str(&mut out, &c.program);
            for v in [&c.host, &c.wdir, &c.path] {
                put_str(&mut out, v.as_deref().unwrap_or(""));
            }
            put_u32(&mut out, c.args.len() as u32);
            for a in &c.args {
                put_str(&mut out, a);
            }
        }
        out
    }

    /// Reads [`SpawnRequest::encode`]'s bytes; a sentence when they are not
    /// a request.
    pub fn decode(bytes: &[u8]) -> Result<SpawnRequest, String> {
        let mut r = Cursor { buf: bytes };
        let n = r.u32()? as usize;
        if n == 0 || n > MAX_COMMANDS {
            return Err(format!(
                "a spawn request names {n} commands (1 to {MAX_COMMANDS} allowed)"
            ));
        }
        let mut commands = Vec::with_capacity(n);
        for _ in 0..n {
            let count = r.u32()?;
            let program = r.string()?;
            let mut info = [None, None, None];
            for v in &mut info {
                let s = r.string()?;
                *v = (!s.is_empty()).then_some(s);
            }
            let [host, wdir, path] = info;
            let nargs = r.u32()? as usize;
            if nargs > r.buf.len() / 4 {
                return Err("a spawn request's argument count exceeds its length".into());
            }
            let args = (0..nargs).map(|_| r.string()).collect::<Result<_, _>>()?;
            commands.push(SpawnCommand {
                program,
                args,
                count,
                host,
                wdir,
                path,
            });
        }
        if !r.buf.is_empty() {
            return Err("a spawn request has bytes after its last command".into());
        }
        let req = SpawnRequest { commands };
        if req.processes() > u64::from(MAX_PROCESSES) {
            return Err(format!(
                "a spawn request asks for {} processes (at most {MAX_PROCESSES} at once)",
                req.processes()
            ));
        }
        Ok(req)
    }
}

/// Parses [`ENV_WORLD`]'s `FIRST:COUNT`.
pub fn parse_world(text: &str) -> Option<(u32, u32)> {
    let (first, count) = text.trim().split_once(':')?;
    let (first, count) = (first.parse().ok()?, count.parse().ok()?);
    (count > 0 && u32::checked_add(first, count).is_some()).then_some((first, count))
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

struct Cursor<'a> {
    buf: &'a [u8],
}

impl Cursor<'_> {
    fn u32(&mut self) -> Result<u32, String> {
        if self.buf.len() < 4 {
            return Err("a spawn request ends inside a number".into());
        }
        let (a, b) = self.buf.split_at(4);
        self.buf = b;
        Ok(u32::from_le_bytes(a.try_into().expect("four bytes")))
    }

    fn string(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        if self.buf.len() < n {
            return Err("a spawn request ends inside a string".into());
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        String::from_utf8(a.to_vec())
            .map_err(|_| "a spawn request holds a string that is not UTF-8".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_commands() -> SpawnRequest {
        SpawnRequest {
            commands: vec![
                SpawnCommand {
                    program: "./child".into(),
                    args: vec!["a b".into(), String::new(), "ü".into()],
                    count: 3,
                    host: Some("host2".into()),
                    wdir: None,
                    path: Some("/opt:/usr".into()),
                },
                SpawnCommand {
                    program: "other".into(),
                    args: vec![],
                    count: 1,
                    ..SpawnCommand::default()
                },
            ],
        }
    }

    #[test]
    fn a_request_reads_back_as_written() {
        let req = two_commands();
        assert_eq!(req.processes(), 4);
        assert_eq!(SpawnRequest::decode(&req.encode()), Ok(req));
    }

    #[test]
    fn every_truncation_of_a_request_is_refused_without_panicking() {
        let bytes = two_commands().encode();
        for len in 0..bytes.len() {
            assert!(SpawnRequest::decode(&bytes[..len]).is_err(), "{len}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(SpawnRequest::decode(&longer).is_err());
    }

    #[test]
    fn requests_beyond_the_limits_are_refused() {
        let mut req = two_commands();
        req.commands[0].count = MAX_PROCESSES;
        let e = SpawnRequest::decode(&req.encode()).unwrap_err();
        assert!(e.contains("4097 processes"), "{e}");
        assert!(SpawnRequest::decode(&0u32.to_le_bytes()).is_err());
    }

    #[test]
    fn worlds_parse_as_first_and_count() {
        assert_eq!(parse_world("4:2"), Some((4, 2)));
        assert_eq!(parse_world("4:0"), None);
        assert_eq!(parse_world("4"), None);
        assert_eq!(parse_world("x:1"), None);
        assert_eq!(parse_world("4294967295:2"), None);
    }
}
