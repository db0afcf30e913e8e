//! mpinetsim on a machine shared with other users, played by a second
//! local user the tests create (as root): folders another user owns or can
//! write are refused for the socket and the shim libraries; the default
//! library folder is private; the job secret never appears where others
//! can read it; a Hello with the right secret that cannot join the job is
//! refused alone; names in a network file cannot place captures outside
//! their folder; the user's files at the paths mpinetsim is given are
//! never removed or replaced.

mod common;

use common::other_user::{other_user, NAME};
use common::standalone::{start_gateway, start_gateway_with};
use common::{bin, build_c, config, ensure_shim, skip_without_mpicc};
use mpinetsim_protocol::{Frame, JobSecret, VERSION};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn my_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// `mpinetsim gateway -n 1 --net reference.toml ARGS`, expected to refuse
/// to start: its stderr.
fn gateway_refuses(args: &[&str]) -> String {
    ensure_shim();
    let o = Command::new(bin())
        .args(["gateway", "-n", "1", "--net", &config("reference.toml")])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty(), "it printed no environment: {err}");
    assert_eq!(err.lines().count(), 1, "one sentence: {err}");
    err
}

/// A fresh folder for one test, in the test temp folder (whose parents
/// only root can write).
fn test_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("shared-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
    d
}

#[test]
fn folders_another_user_owns_or_can_write_are_refused() {
    let Some(other) = other_user() else {
        return;
    };
    // The other user prepares a folder everyone may write, as under /tmp.
    let trap = PathBuf::from(format!("/tmp/mpinetsim-trap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&trap);
    let made = other
        .command("mkdir")
        .args(["-m", "0777"])
        .arg(&trap)
        .status()
        .unwrap();
    assert!(made.success());
    assert_eq!(std::fs::metadata(&trap).unwrap().uid(), other.uid);
    let trap_s = trap.display().to_string();

    let e = gateway_refuses(&["--listen", &format!("unix:{trap_s}/gw.sock")]);
    assert!(
        e.contains(&format!(
            "the socket folder {trap_s} belongs to user {NAME} (uid {}), not to you",
            other.uid
        )),
        "{e}"
    );
    let mine = test_dir("lib-dir");
    let sock = format!("unix:{}/gw.sock", mine.display());
    let e = gateway_refuses(&["--listen", &sock, "--lib-dir", &trap_s]);
    assert!(
        e.contains(&format!(
            "the --lib-dir folder {trap_s} belongs to user {NAME}"
        )),
        "{e}"
    );
    // Nothing was put into the trap, and our own socket was removed.
    assert_eq!(std::fs::read_dir(&trap).unwrap().count(), 0);
    assert!(!mine.join("gw.sock").exists());
    // A folder of our own that others may write is refused too, as is
    // one inside such a folder.
    std::fs::set_permissions(&mine, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = gateway_refuses(&["--listen", &sock]);
    assert!(
        e.contains(&format!(
            "the socket folder {} is writable by other users (mode 0777)",
            mine.display()
        )),
        "{e}"
    );
    let inner = mine.join("lib");
    std::fs::create_dir(&inner).unwrap();
    std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o700)).unwrap();
    let e = gateway_refuses(&["--lib-dir", inner.to_str().unwrap()]);
    assert!(
        e.contains(&format!(
            "lies inside {}, which is writable by other users (mode 0777) without the sticky bit",
            mine.display()
        )),
        "{e}"
    );
    std::fs::remove_dir_all(&trap).unwrap();
    std::fs::remove_dir_all(&mine).unwrap();
}

#[test]
fn the_library_folder_and_the_secret_are_private_and_never_printed() {
    if skip_without_mpicc() {
        return;
    }
    let Some(other) = other_user() else {
        return;
    };
    let hello = build_c("hello", "mpicc");
    let gw = start_gateway("private-lib", "1");
    let socket_dir = Path::new(gw.gateway.strip_prefix("unix:").unwrap())
        .parent()
        .unwrap()
        .to_path_buf();
    // The libraries are not beside the socket but in a private folder of
    // their own, holding only our symbolic links.
    let lib_dir = PathBuf::from(&gw.lib_dir);
    let lib = lib_dir.as_path();
    assert!(!lib.starts_with(&socket_dir), "{}", lib.display());
    assert_eq!(mode(lib), 0o700);
    let folder = std::fs::metadata(lib).unwrap();
    assert_eq!(folder.uid(), my_uid());
    for entry in std::fs::read_dir(lib).unwrap() {
        let m = std::fs::symlink_metadata(entry.unwrap().path()).unwrap();
        assert_eq!(m.uid(), my_uid());
    }
    // The secret is in a 0600 file of ours; the suggested command names
    // the file, and nothing printed holds the secret itself.
    let secret_file = Path::new(&gw.secret_file);
    assert_eq!(mode(secret_file), 0o600);
    assert_eq!(std::fs::metadata(secret_file).unwrap().uid(), my_uid());
    assert!(!gw.printed.contains(&gw.secret), "{}", gw.printed);
    assert!(
        gw.printed.contains(&format!(
            "-genv MPINETSIM_SECRET_FILE {} ./program",
            gw.secret_file
        )),
        "{}",
        gw.printed
    );
    // The other user can read neither the secret nor the library folder,
    // and cannot reach the socket.
    let cat = other.command("cat").arg(secret_file).output().unwrap();
    assert!(!cat.status.success());
    let ls = other.command("ls").arg(lib).output().unwrap();
    assert!(!ls.status.success());
    // (The intruder loads the shim from a folder it can read; from the
    // private one the loader would fall back to the system's MPICH.)
    let readable = PathBuf::from(format!("/tmp/mpinetsim-intruder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&readable);
    std::fs::create_dir(&readable).unwrap();
    std::fs::set_permissions(&readable, std::fs::Permissions::from_mode(0o755)).unwrap();
    let shim = Path::new(bin())
        .parent()
        .unwrap()
        .join("libchannel_shim.so");
    std::os::unix::fs::symlink(&shim, readable.join("libmpich.so.12")).unwrap();
    std::os::unix::fs::symlink(&shim, readable.join("libmpi.so.12")).unwrap();
    let intruder = other
        .command(&hello)
        .env("LD_LIBRARY_PATH", &readable)
        .env("MPINETSIM_GATEWAY", &gw.gateway)
        .env("MPINETSIM_JOB", &gw.job)
        .env("MPINETSIM_SECRET", "0123456789abcdef0123456789abcdef")
        .env("PMI_RANK", "0")
        .env("PMI_SIZE", "1")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&readable).unwrap();
    let said = String::from_utf8_lossy(&intruder.stderr);
    assert!(
        !intruder.status.success()
            && said.contains(&format!(
                "cannot reach the mpinetsim gateway at {}",
                gw.gateway
            ))
            && said.contains("Permission denied"),
        "{said}"
    );
    // Our rank, given only the secret file, completes the job.
    let o = gw
        .rank_command(&[], &gw.gateway, &hello, &[], 0, 1)
        .env_remove("MPINETSIM_SECRET")
        .env("MPINETSIM_SECRET_FILE", &gw.secret_file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let secret_file = gw.secret_file.clone();
    let (code, err, _) = gw.finish();
    assert_eq!(code, 0, "{err}");
    assert!(!Path::new(&secret_file).exists(), "removed at the end");
    assert!(!lib.exists(), "removed at the end");
}

/// Connects to `socket` and sends a Hello with the job's secret.
fn hello(socket: &str, secret: JobSecret, version: u16, rank: u32, size: u32, job: u64) {
    let mut s = std::os::unix::net::UnixStream::connect(socket).unwrap();
    let mut bytes = Vec::new();
    Frame::Hello {
        version,
        rank,
        size,
        pid: std::process::id(),
        job,
        secret,
    }
    .encode(&mut bytes);
    s.write_all(&bytes).unwrap();
    // Wait for the gateway to close the connection.
    let _ = std::io::Read::read_to_end(&mut s, &mut Vec::new());
}

#[test]
fn a_hello_with_the_secret_that_cannot_join_is_refused_alone() {
    if skip_without_mpicc() {
        return;
    }
    let prog = build_c("hello", "mpicc");
    let gw = start_gateway("unfit-hellos", "2");
    let socket = gw.gateway.strip_prefix("unix:").unwrap().to_string();
    let secret = JobSecret::from_hex(&gw.secret).unwrap();
    let job: u64 = gw.job.parse().unwrap();
    hello(&socket, secret, VERSION + 1, 0, 2, job);
    hello(&socket, secret, VERSION, 0, 2, job + 1);
    hello(&socket, secret, VERSION, 0, 3, job);
    hello(&socket, secret, VERSION, 7, 2, job);
    // Rank 0 joins and finishes; another rank 0 is then refused.
    let r0 = gw
        .rank_command(&[], &gw.gateway, &prog, &[], 0, 2)
        .output()
        .unwrap();
    assert!(
        r0.status.success(),
        "{}",
        String::from_utf8_lossy(&r0.stderr)
    );
    hello(&socket, secret, VERSION, 0, 2, job);
    let r1 = gw
        .rank_command(&[], &gw.gateway, &prog, &[], 1, 2)
        .output()
        .unwrap();
    assert!(
        r1.status.success(),
        "{}",
        String::from_utf8_lossy(&r1.stderr)
    );
    let (code, err, report) = gw.finish();
    assert_eq!(code, 0, "{err}");
    let report = report.unwrap();
    assert_eq!(report["outcome"], "completed");
    assert_eq!(report["refused_connections"], 5, "{err}");
    let refused: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("mpinetsim: refused a connection from a local process (pid "))
        .collect();
    assert_eq!(refused.len(), 5, "{err}");
    for needle in [
        format!(
            "its Hello speaks protocol version {} but this gateway speaks {VERSION}",
            VERSION + 1
        ),
        format!(
            "its Hello names job {}, not this gateway's job {job}",
            job + 1
        ),
        "its Hello (rank 0) says the job has 3 ranks but this gateway runs 2".into(),
        "its Hello names rank 7, but a job of 2 ranks has ranks 0 to 1".into(),
        "its Hello names rank 0, which is already connected (pid ".into(),
    ] {
        assert!(
            refused.iter().any(|l| l.contains(&needle)),
            "{needle}:\n{err}"
        );
    }
}

#[test]
fn the_users_files_at_given_paths_are_never_removed_or_replaced() {
    let dir = test_dir("keep");
    // A regular file where the socket should go.
    let sock = dir.join("gw.sock");
    std::fs::write(&sock, b"my notes").unwrap();
    let e = gateway_refuses(&["--listen", &format!("unix:{}", sock.display())]);
    assert!(
        e.contains(&format!(
            "{} is a regular file, not a socket an earlier gateway left behind",
            sock.display()
        )),
        "{e}"
    );
    assert_eq!(std::fs::read(&sock).unwrap(), b"my notes");
    // The user's own MPICH in the library folder.
    let lib = dir.join("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::write(lib.join("libmpi.so.12"), b"my MPICH").unwrap();
    let e = gateway_refuses(&[
        "--listen",
        &format!("unix:{}/other.sock", dir.display()),
        "--lib-dir",
        lib.to_str().unwrap(),
    ]);
    assert!(
        e.contains("already holds libmpi.so.12, which mpinetsim did not put there"),
        "{e}"
    );
    assert_eq!(
        std::fs::read(lib.join("libmpi.so.12")).unwrap(),
        b"my MPICH"
    );
    assert_eq!(std::fs::read_dir(&lib).unwrap().count(), 1, "nothing added");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn network_names_cannot_place_captures_outside_their_folder() {
    let dir = test_dir("names");
    let caps = dir.join("caps");
    for (name, key) in [("../escaped", "host[0].name"), ("/tmp/abs", "host[0].name")] {
        let net = dir.join("evil.toml");
        std::fs::write(
            &net,
            format!(
                "[[host]]\nname = \"{name}\"\n[[host]]\nname = \"h1\"\n[[switch]]\nname = \"s\"\n\
                 [[link]]\na = \"{name}\"\nb = \"s\"\n[[link]]\na = \"h1\"\nb = \"s\"\n"
            ),
        )
        .unwrap();
        let o: Output = Command::new(bin())
            .args(["simulate", "--iters", "1", "--net"])
            .arg(&net)
            .arg("--capture")
            .arg(&caps)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "`{key}` is \"{name}\": node and link names may not contain '/', '..'"
            )),
            "{err}"
        );
    }
    assert!(!dir.join("escaped.pcap").exists());
    assert!(!Path::new("/tmp/abs.pcap").exists());
    assert!(!caps.exists(), "nothing was written");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Stands for a test whose prerequisite is missing: run only by
/// `a_missing_prerequisite_fails_in_ci`, with a PATH lacking mpicc.
#[test]
#[ignore = "run by a_missing_prerequisite_fails_in_ci"]
fn probe_without_mpicc() {
    if skip_without_mpicc() {
        return;
    }
    panic!("mpicc was found on PATH={:?}", std::env::var("PATH"));
}

#[test]
fn a_missing_prerequisite_fails_in_ci() {
    let empty = test_dir("no-tools");
    let probe = |ci: Option<&str>, require: Option<&str>| {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args(["--ignored", "--exact", "probe_without_mpicc", "--nocapture"])
            .env("PATH", &empty)
            .env_remove("CI")
            .env_remove("MPINETSIM_REQUIRE_ALL");
        if let Some(v) = ci {
            c.env("CI", v);
        }
        if let Some(v) = require {
            c.env("MPINETSIM_REQUIRE_ALL", v);
        }
        let o = c.output().unwrap();
        let text =
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
        (o.status.success(), text)
    };
    let (passed, text) = probe(None, None);
    assert!(
        passed && text.contains("SKIPPED: mpicc not found"),
        "{text}"
    );
    for (ci, require) in [(Some("true"), None), (None, Some("1"))] {
        let (passed, text) = probe(ci, require);
        assert!(
            !passed && text.contains("a prerequisite of this test is missing: mpicc not found"),
            "CI={ci:?} MPINETSIM_REQUIRE_ALL={require:?}: {text}"
        );
    }
    let (passed, _) = probe(Some("false"), None);
    assert!(passed, "CI=false is not CI");
}

#[test]
fn the_default_socket_folder_is_created_private() {
    // `--listen unix:DIR/gw.sock` with DIR missing: created 0700.
    let dir = test_dir("created").join("deeper/still");
    let sock = dir.join("gw.sock");
    let gw = start_gateway_with(
        "created",
        "1",
        &[],
        &["--listen", &format!("unix:{}", sock.display())],
    );
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(dir.parent().unwrap()), 0o700);
    assert_eq!(mode(&sock), 0o600);
    drop(gw);
}
