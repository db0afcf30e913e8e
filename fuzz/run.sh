#!/usr/bin/env bash
# Runs every fuzz target under libFuzzer for SECONDS each (default 20), as
# CI does; docs/reliability.md gives longer runs. Installs cargo-fuzz when
# missing. Builds without a sanitizer (the code under test is safe Rust) but
# with debug assertions, so an arithmetic overflow is a crash too.
#
#   fuzz/run.sh [SECONDS] [TARGET ...]
#
# A crash stops the script with libFuzzer's report; the input is in
# fuzz/artifacts/TARGET/. Fix the bug, then copy the input into
# fuzz/regressions/TARGET/ under a name saying what it found, so the
# regression test (cargo test -p mpinetsim-fuzz) keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-20}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(network_toml network_string fault_spec protocol_frames envelope datatypes trace)
fi
case "$secs" in
  ''|*[!0-9]*) echo "fuzz/run.sh: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;;
esac

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --version 0.13.2
flags=(--features libfuzzer --sanitizer none --release --debug-assertions)
cargo fuzz build "${flags[@]}"

for t in "${targets[@]}"; do
  corpus=target/fuzz-corpus/$t
  mkdir -p "$corpus"
  inputs=("$corpus")
  [ -d "fuzz/seeds/$t" ] && inputs+=("fuzz/seeds/$t")
  [ -d "fuzz/regressions/$t" ] && inputs+=("fuzz/regressions/$t")
  [ "$t" = network_toml ] && inputs+=(configs)
  echo "== $t: ${secs} s"
  log=target/fuzz-corpus/$t.log
  status=0
  cargo fuzz run "${flags[@]}" "$t" "${inputs[@]}" -- \
    -max_total_time="$secs" -rss_limit_mb=8192 -timeout=30 -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  grep -E '^(INFO: seed corpus|#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|SUMMARY|thread .* panicked|Test unit written|MS:)' "$log" || true
  if [ "$status" -ne 0 ] || grep -q '^SUMMARY: libFuzzer' "$log"; then
    echo "fuzz/run.sh: $t failed (exit $status; whole log in $log); the input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
done
echo "fuzz/run.sh: ${#targets[@]} targets ran ${secs} s each without a failure"
