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

# The TCP exchange both simulators must agree on (gateway/tests/ns3_reference.rs):
# N bytes from host0 to host1, then N back on a second connection; simulated
# times and best wall times side by side.
echo
printf '%-44s %12s %12s %8s %10s %10s %9s\n' "exchange" "netsim_sim_s" "ns3_sim_s" "diff" "netsim_s" "ns3_s" "ns3/netsim"
for spec in "1048576 cubic 1 1Gbps 500us" "8388608 cubic 1 1Gbps 500us" "8388608 newreno 0 1Gbps 500us" \
            "8388608 cubic 1 100Gbps 500ns"; do
  set -- $spec
  sackw=$([ "$3" = 1 ] && echo true || echo false)
  sim_a="" ; wall_a=$(for _ in $(seq "$reps"); do
    "$ours" simulate --net configs/reference.toml --set "tcp.congestion=$2" --set "tcp.sack=$sackw" \
      --set "link_defaults.rate=$4" --set "link_defaults.delay=$5" --workload pingpong --iters 1 --size "$1" |
      awk '/^wall time:/ {print $3}'
  done | best)
  sim_a=$("$ours" simulate --net configs/reference.toml --set "tcp.congestion=$2" --set "tcp.sack=$sackw" \
      --set "link_defaults.rate=$4" --set "link_defaults.delay=$5" --workload pingpong --iters 1 --size "$1" |
      awk '/^simulated time:/ {print $3}')
  line=$("$ns3" --workload=exchange --likeMpinetsim=1 --ethernetFraming=1 --size="$1" --cc="$2" --sack="$3" \
      --rate="$4" --delay="$5" 2>/dev/null)
  sim_b=$(sed -n 's/.*simulated_s=\([0-9.e+-]*\).*/\1/p' <<<"$line")
  wall_b=$(for _ in $(seq "$reps"); do
    "$ns3" --workload=exchange --likeMpinetsim=1 --ethernetFraming=1 --size="$1" --cc="$2" --sack="$3" \
      --rate="$4" --delay="$5" 2>/dev/null | sed -n 's/.*wall_s=\([0-9.e+-]*\).*/\1/p'
  done | best)
  printf '%-44s %12.9f %12.9f %7.2f%% %10.4f %10.4f %8.1fx\n' "$1 B $2 sack=$3 $4/$5" "$sim_a" "$sim_b" \
    "$(echo "($sim_a / $sim_b - 1) * 100" | bc -l)" "$wall_a" "$wall_b" "$(echo "$wall_b / $wall_a" | bc -l)"
done
