//! Conventions of the command line (issue 22 item 7): ranks are `-n`,
//! `--np` or `--ranks` everywhere, listed values appear in `--help` and a
//! value outside them is one sentence, `-v` adds diagnostic lines on
//! stderr, and clap generates the shell completions and the man page.

mod common;

use common::{bin, build_c, config, ensure_shim, skip_without_mpicc};
use std::process::{Command, Output};

fn mpinetsim(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn simulate_takes_its_ranks_as_n_np_or_ranks() {
    let net = config("reference.toml");
    for ranks in [["-n", "3"], ["-np", "3"], ["--ranks", "3"], ["--np", "3"]] {
        let o = mpinetsim(&[
            "simulate",
            "--net",
            &net,
            "--workload",
            "ring",
            "--iters",
            "2",
            ranks[0],
            ranks[1],
        ]);
        assert!(o.status.success(), "{ranks:?}: {}", stderr(&o));
        // A ring on 3 ranks: 3 messages per shift, 2 shifts.
        assert!(
            stdout(&o).contains("on 3 ranks"),
            "{ranks:?}: {}",
            stdout(&o)
        );
        assert!(
            stdout(&o).contains("messages:         6 "),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn help_lists_the_allowed_values() {
    let o = mpinetsim(&["simulate", "--help"]);
    assert!(o.status.success());
    let help = stdout(&o);
    for value in ["pingpong", "alltoall", "ring", "random"] {
        assert!(help.contains(value), "{value} missing from:\n{help}");
    }
    let help = stdout(&mpinetsim(&["run", "--help"]));
    for value in ["packet", "analytic", "cpu", "wall", "stop", "wait"] {
        assert!(help.contains(value), "{value} missing from:\n{help}");
    }
    assert!(help.contains("--ranks"), "{help}");
}

#[test]
fn a_value_outside_the_list_is_one_sentence_and_exit_code_two() {
    let o = mpinetsim(&[
        "simulate",
        "--net",
        &config("reference.toml"),
        "--model",
        "fluid",
    ]);
    // simulate has no --model: clap's own error for an unknown option.
    assert_eq!(o.status.code(), Some(2));
    let o = mpinetsim(&[
        "replay",
        "t.mnt",
        "--net",
        &config("reference.toml"),
        "--model",
        "fluid",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "mpinetsim: --model fluid: unknown model; give `packet` or `analytic`\n"
    );
}

#[test]
fn completions_for_each_shell_name_the_subcommands_and_options() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = mpinetsim(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        for word in ["mpinetsim", "simulate", "calibrate"] {
            assert!(script.contains(word), "{shell}: {word} missing");
        }
        // fish spells a long option `-l net`, the others `--net`.
        for option in ["net", "time-factor"] {
            assert!(
                script.contains(&format!("--{option}")) || script.contains(&format!("-l {option}")),
                "{shell}: --{option} missing"
            );
        }
    }
    let o = mpinetsim(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "mpinetsim: tcsh: unknown shell; give `bash`, `elvish`, `fish`, `powershell` or `zsh`\n"
    );
}

#[test]
fn the_man_page_is_roff_with_every_subcommand() {
    let o = mpinetsim(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH mpinetsim 1"), "{page}");
    for sub in [
        "simulate",
        "run",
        "replay",
        "topo",
        "gateway",
        "calibrate",
        "compare",
        "completions",
    ] {
        assert!(page.contains(sub), "{sub} missing from the man page");
    }
    // The internal watchdog is hidden from users.
    assert!(!page.contains("rank-watchdog"));
}

#[test]
fn verbose_shows_debug_lines_quiet_and_default_do_not() {
    if skip_without_mpicc() {
        return;
    }
    ensure_shim();
    let prog = build_c("pingpong", "mpicc");
    let net = config("reference.toml");
    let run = |flags: &[&str], env: Option<&str>| {
        let mut c = Command::new(bin());
        c.arg("run")
            .args(flags)
            .args(["-n", "2", "--net", &net, "--time-factor", "2", "--"])
            .arg(&prog)
            .args(["2", "8"])
            .env_remove("RUST_LOG");
        if let Some(filter) = env {
            c.env("RUST_LOG", filter);
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{flags:?}: {}", stderr(&o));
        stderr(&o)
    };
    let debug = "mpinetsim: debug: network ";
    assert!(run(&["-v"], None).contains(debug));
    assert!(!run(&[], None).contains(debug));
    assert!(!run(&["-q"], None).contains(debug));
    // RUST_LOG wins over the flags.
    assert!(run(&[], Some("debug")).contains(debug));
    assert!(!run(&["-v"], Some("warn")).contains(debug));
    // The report summary is a result, not a diagnostic: -q keeps it.
    assert!(run(&["-q"], None).contains("mpinetsim: job report (completed)"));
}

#[test]
fn show_net_prints_the_network_as_it_would_run_and_runs_nothing() {
    // The program does not exist: --show-net stops before it is looked for.
    let o = mpinetsim(&[
        "run",
        "-n",
        "3",
        "--net",
        &config("reference.toml"),
        "--set",
        "link.\"host1-switch0\".rate=10Mbps",
        "--fault",
        "node switch0 down at 5ms",
        "--show-net",
        "--",
        "/nonexistent/program",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("network reference "), "{text}");
    assert!(
        text.contains("link host1-switch0 host1 <-> switch0: rate 10Mbps,"),
        "{text}"
    );
    assert!(
        text.contains("link host0-switch0 host0 <-> switch0: rate 1Gbps,"),
        "{text}"
    );
    assert!(text.contains("ranks 0:host0 1:host1 2:host2\n"), "{text}");
    assert!(
        text.contains("fault node switch0 down at 5.000 ms"),
        "{text}"
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn a_resource_the_system_refuses_before_the_job_is_an_internal_failure_not_usage() {
    // The job's private folder goes under $TMPDIR; a TMPDIR that does not
    // exist refuses it after the command line and the network were found
    // good: exit code 4, one sentence, no rank started.
    let o = Command::new(bin())
        .env("TMPDIR", "/nonexistent-mpinetsim-tmpdir")
        .args([
            "run",
            "-n",
            "2",
            "--net",
            &config("reference.toml"),
            "--",
            "/bin/true",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let e = stderr(&o);
    let lines: Vec<&str> = e.lines().filter(|l| l.contains("private folder")).collect();
    assert_eq!(lines.len(), 1, "{e}");
    assert!(
        lines[0].starts_with(
            "mpinetsim: cannot create the private folder in /nonexistent-mpinetsim-tmpdir: "
        ) && lines[0].ends_with("; set TMPDIR to a writable folder"),
        "{e}"
    );
    // A usage error in the same command is still 2.
    let o = mpinetsim(&[
        "run",
        "-n",
        "2",
        "--net",
        "/no/such/net.toml",
        "--",
        "/bin/true",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
