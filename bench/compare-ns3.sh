#!/usr/bin/env bash
# Runs netsim (`mpinetsim simulate`) and ns-3 3.37 (bench/ns3) side by side on
# the MPI-NeTSim reference network for the two workloads of docs/performance.md
# and prints the best-of-N wall times and the speed ratio.
#
# Needs: libns3-dev (apt-get install libns3-dev), a release build of mpinetsim.
# Usage: bench/compare-ns3.sh [repetitions]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${1:-3}"

cargo build --release -q -p gateway
bench/ns3/build.sh >/dev/null 2>&1
ours=./target/release/mpinetsim
ns3=./bench/ns3/build/reference_bench

best() { sort -g | head -1; }

run_ours() { # workload size iters
  for _ in $(seq "$reps"); do
    "$ours" simulate --net configs/reference.toml --workload "$1" --size "$2" --iters "$3" -n 4 |
      awk '/^wall time:/ {print $3}'
  done | best
}
run_ns3() { # workload size iters
  for _ in $(seq "$reps"); do
    "$ns3" --workload="$1" --size="$2" --iters="$3" --likeMpinetsim=1 2>/dev/null |
      sed -n 's/.*wall_s=\([0-9.e+-]*\).*/\1/p'
  done | best
}

printf '%-28s %12s %12s %10s\n' "workload" "netsim_s" "ns3_s" "ns3/netsim"
for spec in "pingpong 32 10000" "alltoall 16777216 1"; do
  set -- $spec
  a=$(run_ours "$1" "$2" "$3")
  b=$(run_ns3 "$1" "$2" "$3")
  printf '%-28s %12.4f %12.4f %9.1fx\n' "$1 ($2 B x $3)" "$a" "$b" "$(echo "$b / $a" | bc -l)"
done
