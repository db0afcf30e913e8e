//! `-np N`, the way mpiexec and smpirun users give the number of ranks.
//! clap has no multi-letter short options (it would read `-np` as `-n p`,
//! or hand it to the program), so before parsing, a `-np` or `-np=N`
//! among a subcommand's own options becomes `--np`. Only the options
//! before the program are looked at: a `-np` after the program's name or
//! after `--` belongs to the program.

use std::ffi::OsString;

/// `args` (as the process got them) with the subcommand's `-np` spelt
/// `--np`, when that subcommand has an `--np` option; otherwise unchanged.
pub fn rewrite(mut args: Vec<OsString>, cli: &clap::Command) -> Vec<OsString> {
    let Some(sub) = args
        .get(1)
        .and_then(|s| s.to_str())
        .and_then(|name| cli.find_subcommand(name))
    else {
        return args;
    };
    if !sub.get_arguments().any(|a| a.get_long() == Some("np")) {
        return args;
    }
    let takes_value = |arg: Option<&clap::Arg>| arg.is_some_and(|a| a.get_action().takes_values());
    let mut i = 2;
    while i < args.len() {
        let Some(token) = args[i].to_str().map(str::to_owned) else {
            return args; // not UTF-8: a program argument, or clap's to refuse
        };
        if token == "--" {
            break;
        }
        if token == "-np" {
            args[i] = "--np".into();
            i += 2;
        } else if let Some(value) = token.strip_prefix("-np=") {
            args[i] = format!("--np={value}").into();
            i += 1;
        } else if let Some(long) = token.strip_prefix("--") {
            let arg = sub.get_arguments().find(|a| {
                a.get_long() == Some(long)
                    || a.get_all_aliases()
                        .is_some_and(|names| names.contains(&long))
            });
            i += if takes_value(arg) { 2 } else { 1 };
        } else if let Some(short) = token.strip_prefix('-').filter(|s| !s.is_empty()) {
            let c = short.chars().next().unwrap_or('-');
            let arg = sub.get_arguments().find(|a| a.get_short() == Some(c));
            // `-n4` carries its value; `-n 4` takes the next token.
            i += if takes_value(arg) && short.chars().count() == 1 {
                2
            } else {
                1
            };
        } else {
            break; // the program
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::{CommandFactory, Parser};

    fn rewritten(line: &str) -> Vec<String> {
        let args = line.split(' ').map(OsString::from).collect();
        rewrite(args, &Cli::command())
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn np_before_the_program_becomes_the_ranks_option() {
        assert_eq!(
            rewritten("mpinetsim run -np 4 --net n.toml -- ./a.out"),
            [
                "mpinetsim",
                "run",
                "--np",
                "4",
                "--net",
                "n.toml",
                "--",
                "./a.out"
            ]
        );
        assert_eq!(
            rewritten("mpinetsim run --net n.toml -np=8 ./a.out")[4],
            "--np=8"
        );
        let cli = Cli::parse_from(rewritten("mpinetsim run --net n.toml -np 4 ./a.out -np 3"));
        let Command::Run(a) = cli.command else {
            panic!("not run")
        };
        assert_eq!(a.ranks, 4);
        assert_eq!(a.command, ["./a.out", "-np", "3"]);
    }

    #[test]
    fn np_after_the_program_or_after_dashes_is_the_programs() {
        for line in [
            "mpinetsim run -n 4 --net n.toml -- ./a.out -np 2",
            "mpinetsim run -n 4 --net n.toml ./a.out -np 2",
            "mpinetsim run -n4 --net n.toml ./a.out -np 2",
        ] {
            assert_eq!(rewritten(line).join(" "), line);
        }
    }

    #[test]
    fn a_command_without_an_np_option_is_left_to_clap() {
        let line = "mpinetsim replay -np 4 t.mnt --net n.toml";
        assert_eq!(rewritten(line).join(" "), line);
    }

    #[test]
    fn np_after_an_alias_with_its_value_is_still_found() {
        assert_eq!(
            rewritten("mpinetsim compare --json c.json -np 2 --net n.toml -- ./a.out")[4],
            "--np"
        );
    }

    #[test]
    fn gateway_compare_calibrate_simulate_and_topo_take_np_too() {
        for sub in ["gateway", "compare", "calibrate", "simulate", "topo"] {
            assert_eq!(
                rewritten(&format!("mpinetsim {sub} -np 2 --net n.toml"))[2],
                "--np",
                "{sub}"
            );
        }
    }
}
