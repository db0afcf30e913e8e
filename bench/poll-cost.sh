#!/usr/bin/env bash
# What a test or probe that finds nothing costs in wall time: under Debian's
# MPICH (mpiexec, 2 ranks; the default `poll_cost` comes from this row) and
# through mpinetsim's shim on each transport (2 ranks, ideal network,
# factor 1), measured in the same run by bench/poll_cost.c (the fastest of
# its rounds, ns per call). The last column is each row's MPI_Test cost as
# a ratio to MPICH's.
# Usage: bench/poll-cost.sh [calls] [rounds]   (default 1000000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
calls="${1:-1000000}"
rounds="${2:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cargo build --release -q --workspace
bin="${CARGO_TARGET_DIR:-target}/release/mpinetsim"
mpicc -O2 -o "$tmp/poll_cost" bench/poll_cost.c

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }

mpich="$(mpiexec -n 2 "$tmp/poll_cost" "$calls" "$rounds")"
reference="$(echo "$mpich" | field test_ns)"
printf '%-22s %10s %10s %10s %8s\n' "" "Iprobe ns" "Test ns" "Improbe ns" "Test/MPICH"
row() {
  local name="$1" out="$2"
  local t
  t="$(echo "$out" | field test_ns)"
  printf '%-22s %10s %10s %10s %8.1f\n' "$name" "$(echo "$out" | field iprobe_ns)" "$t" \
    "$(echo "$out" | field improbe_ns)" "$(echo "$t / $reference" | bc -l)"
}
row "MPICH (mpiexec)" "$mpich"
for transport in shm socket; do
  out="$("$bin" run -qq -n 2 --net configs/ideal.toml --time-factor 1 --transport "$transport" \
    "$tmp/poll_cost" "$calls" "$rounds" 2>/dev/null)"
  row "mpinetsim, $transport" "$out"
done
