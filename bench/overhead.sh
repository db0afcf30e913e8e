#!/usr/bin/env bash
# The cost of mpinetsim's own machinery: a 32-byte MPI ping-pong through
# shim + gateway on the ideal network (no virtual time) at time factor 1,
# beside a raw Unix-socket round trip and Debian MPICH's own shared-memory
# ping-pong, measured in the same run. Prints mean round-trip times and the
# ratio to the raw socket round trip.
# Usage: bench/overhead.sh [iterations]   (default 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
iters="${1:-10000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cargo build --release -q
cc -O2 -o "$tmp/unix_pingpong" bench/unix_pingpong.c
mpicc -O2 -o "$tmp/pingpong" tests/mpi/pingpong.c

raw=$("$tmp/unix_pingpong" "$iters" 32 | sed -n 's/.*round_trip_us=\([0-9.]*\).*/\1/p')
mpich=$(mpiexec -n 2 "$tmp/pingpong" "$iters" 32 | sed -n 's/.*one_way_us=\([0-9.]*\).*/\1/p')
ours=$(./target/release/mpinetsim run -n 2 --net configs/ideal.toml --time-factor 1 -- "$tmp/pingpong" "$iters" 32 2>/dev/null |
  sed -n 's/.*one_way_us=\([0-9.]*\).*/\1/p')

mpich_rtt=$(echo "2 * $mpich" | bc -l)
ours_rtt=$(echo "2 * $ours" | bc -l)
printf '%-44s %10s %8s\n' "32-byte round trip ($iters iterations)" "us" "x raw"
printf '%-44s %10.2f %8.2f\n' "raw Unix socket (socketpair, 2 processes)" "$raw" 1
printf '%-44s %10.2f %8.2f\n' "Debian MPICH shared memory (mpiexec -n 2)" "$mpich_rtt" "$(echo "$mpich_rtt / $raw" | bc -l)"
printf '%-44s %10.2f %8.2f\n' "mpinetsim shim + gateway, ideal network" "$ours_rtt" "$(echo "$ours_rtt / $raw" | bc -l)"
