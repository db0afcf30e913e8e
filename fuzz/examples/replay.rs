//! Runs one input through one harness outside libFuzzer, for a debugger or
//! a profiler: `cargo run --release -p mpinetsim-fuzz --example replay --
//! TARGET FILE`.

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(target), Some(file)) = (args.next(), args.next()) else {
        eprintln!("usage: replay TARGET FILE");
        std::process::exit(2);
    };
    let Some(&(_, harness)) = mpinetsim_fuzz::TARGETS.iter().find(|t| t.0 == target) else {
        eprintln!("replay: no target named {target}");
        std::process::exit(2);
    };
    let data = std::fs::read(&file).unwrap_or_else(|e| {
        eprintln!("replay: cannot read {file}: {e}");
        std::process::exit(2);
    });
    harness(&data);
}
