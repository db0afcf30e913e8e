#!/usr/bin/env bash
# The cost of mpinetsim's own machinery: a 32-byte MPI ping-pong through
# shim + gateway on the ideal network (no virtual time passes) at time
# factor 1, with each transport between the ranks and the gateway
# (--transport shm and --transport socket), beside a bare Unix-socket
# round trip (socketpair between two processes) and Debian MPICH's own
# shared-memory ping-pong, all measured in the same run. Every round trip
# is timed on its own (bench/rtt_pingpong.c, bench/unix_pingpong.c); the
# table gives the median and the 99th percentile, and each median's ratio
# to the socketpair's median of the same round. With several rounds the
# configurations alternate round by round (a load that comes and goes
# touches them alike) and the last block gives the median over the rounds.
# Usage: bench/overhead.sh [round trips] [rounds]   (default 100000 1)
set -euo pipefail
cd "$(dirname "$0")/.."
iters="${1:-100000}"
rounds="${2:-1}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cargo build --release -q --workspace
bin="${CARGO_TARGET_DIR:-target}/release/mpinetsim"
cc -O2 -o "$tmp/unix_pingpong" bench/unix_pingpong.c
mpicc -O2 -o "$tmp/rtt_pingpong" bench/rtt_pingpong.c

field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }

# one CONFIG -> "median p99" in us
one() {
  local out
  case "$1" in
    socketpair) out=$("$tmp/unix_pingpong" "$iters" 32) ;;
    mpich) out=$(mpiexec -n 2 "$tmp/rtt_pingpong" "$iters" 32) ;;
    shm|socket) out=$("$bin" run -n 2 --net configs/ideal.toml --time-factor 1 \
                        --transport "$1" -- "$tmp/rtt_pingpong" "$iters" 32 2>/dev/null) ;;
  esac
  echo "$(echo "$out" | field median_us) $(echo "$out" | field p99_us)"
}

configs=(socketpair shm socket mpich)
declare -A label=(
  [socketpair]="bare Unix socketpair (2 processes)"
  [shm]="mpinetsim --transport shm"
  [socket]="mpinetsim --transport socket"
  [mpich]="Debian MPICH shared memory (mpiexec -n 2)"
)
declare -A medians p99s
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min), $(nproc) cores"
for r in $(seq "$rounds"); do
  printf '\nround %d: 32-byte round trip, %d round trips\n' "$r" "$iters"
  printf '%-44s %10s %10s %10s\n' "" "median us" "p99 us" "x socketpair"
  for c in "${configs[@]}"; do
    read -r m p < <(one "$c")
    medians[$c]+="$m "
    p99s[$c]+="$p "
    [ "$c" = socketpair ] && ref="$m"
    printf '%-44s %10.2f %10.2f %10.2f\n' "${label[$c]}" "$m" "$p" "$(echo "$m / $ref" | bc -l)"
  done
done
if [ "$rounds" -gt 1 ]; then
  med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  printf '\nmedian over %d rounds\n' "$rounds"
  printf '%-44s %10s %10s %10s\n' "" "median us" "p99 us" "x socketpair"
  ref=$(echo "${medians[socketpair]}" | med)
  for c in "${configs[@]}"; do
    m=$(echo "${medians[$c]}" | med)
    p=$(echo "${p99s[$c]}" | med)
    printf '%-44s %10.2f %10.2f %10.2f\n' "${label[$c]}" "$m" "$p" "$(echo "$m / $ref" | bc -l)"
  done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
