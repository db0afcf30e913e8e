#!/usr/bin/env bash
# How close a 32-byte MPI ping-pong through mpinetsim comes to the network
# model on a microsecond network, factor by factor (issue 24): the one-way
# time the program measures with MPI_Wtime, beside what `mpinetsim
# simulate` gives for the same exchange, the computation the ranks were
# charged per MPI call, and the median lateness of their messages'
# injections. With B_MPINETSIM and B_SHIM set (another build's binary and
# libchannel_shim.so), every row runs both builds alternately (an A/B in
# one run, so machine load falls on both alike).
# Usage: bench/microsecond-pingpong.sh [iterations] [factors...]
#        (defaults: 10000; 16 64 256 1024)
# NET and SETS choose the network (default: reference.toml with 100 Gbps,
# 500 ns links, i.e. 1 us host to host).
set -euo pipefail
cd "$(dirname "$0")/.."
iters="${1:-10000}"; shift || true
factors="${*:-16 64 256 1024}"
net="${NET:-configs/reference.toml}"
sets="${SETS:---set link_defaults.rate=100Gbps --set link_defaults.delay=500ns}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cargo build --release -q
mpicc -O2 -o "$tmp/pingpong" tests/mpi/pingpong.c
A_MPINETSIM="$PWD/target/release/mpinetsim"
A_SHIM="$PWD/target/release/libchannel_shim.so"

# The model: the same exchange in `simulate` (every 32-byte MPI message
# travels with the shim's 56-byte envelope), the difference of iters + 100
# and 100 round trips, so the connection's set-up cancels.
simulated() { # iterations
  # shellcheck disable=SC2086
  "$A_MPINETSIM" simulate --net "$net" $sets -n 2 --iters "$1" --size 88 |
    sed -n 's/^simulated time: *\([0-9.]*\) s.*/\1/p'
}
model_us=$(echo "($(simulated $((iters + 100))) - $(simulated 100)) * 1000000 / (2 * $iters)" | bc -l)
printf 'network %s %s; simulate: %.4f us one way\n' "$net" "$sets" "$model_us"
printf '%-8s %-6s %12s %10s %18s %14s %16s\n' factor build "one way us" "x model" "computation/call" "inject p50 ns" "wake-up p50/p99 ns"

row() { # build-name mpinetsim shim factor
  # shellcheck disable=SC2086
  MPINETSIM_SHIM_LIB="$3" "$2" run -n 2 --net "$net" $sets --time-factor "$4" \
    --report "$tmp/r.json" -- "$tmp/pingpong" "$iters" 32 2>/dev/null >"$tmp/out"
  local one_way
  one_way=$(sed -n 's/.*one_way_us=\([0-9.]*\).*/\1/p' "$tmp/out")
  python3 - "$tmp/r.json" "$1" "$4" "$one_way" "$model_us" <<'P'
import json, sys
r = json.load(open(sys.argv[1]))
name, factor, one_way, model = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
per_call = [rk["mpi"]["compute_s"] / rk["mpi"]["calls"] * 1e9 for rk in r["rank_reports"]]
inject = [k for k in r["max_behind"]["by_kind"] if k["kind"] == "inject"]
p50 = inject[0]["p50_ns"] if inject else 0
w = r.get("loop_wakeups") or {}
wake = f"{w.get('p50_ns')}/{w.get('p99_ns')}"
print(f"{factor:<8} {name:<6} {one_way:12.3f} {one_way / model:10.2f} {' / '.join(f'{c:.0f}' for c in per_call):>18} {p50:14} {wake:>16}")
P
}

for f in $factors; do
  row A "$A_MPINETSIM" "$A_SHIM" "$f"
  if [ -n "${B_MPINETSIM:-}" ]; then row B "$B_MPINETSIM" "$B_SHIM" "$f"; fi
done
