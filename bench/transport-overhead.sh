#!/usr/bin/env bash
# What TCP costs against a Unix socket between ranks and the gateway: a
# 32-byte MPI ping-pong through a standalone `mpinetsim gateway` on the
# ideal network (no virtual time passes) at time factor 1, so the round
# trip the program measures is the machinery's own: rank -> gateway ->
# rank and back. Three transports, alternated round by round:
#   unix   MPINETSIM_GATEWAY=unix:PATH
#   tcp    tcp:127.0.0.1:PORT (loopback)
#   veth   tcp over veth pairs between network namespaces (gateway in one,
#          each rank in another) -- only as root with `ip netns`
# Prints the best and the median round trip of each and their ratios to
# unix (on a loaded machine the best shows the transport's own cost, the
# median what a run meets).
# Usage: bench/transport-overhead.sh [iterations] [rounds]   (default 10000 5)
set -euo pipefail
cd "$(dirname "$0")/.."
iters="${1:-10000}"
rounds="${2:-5}"
tmp="$(mktemp -d)"
ns="mnb$$"
gw=
cleanup() {
  [ -n "$gw" ] && kill "$gw" 2>/dev/null
  for h in g a b; do ip netns del "$ns$h" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

cargo build --release -q --workspace
bin="${CARGO_TARGET_DIR:-target}/release/mpinetsim"
mpicc -O2 -o "$tmp/pingpong" tests/mpi/pingpong.c

veth=0
if [ "$(id -u)" = 0 ] && ip netns add "${ns}g" 2>/dev/null; then
  veth=1
  ip netns add "${ns}a"; ip netns add "${ns}b"
  for h in g a b; do ip -n "$ns$h" link set lo up; done
  ip -n "${ns}g" link add ga type veth peer name ag netns "${ns}a"
  ip -n "${ns}g" link add gb type veth peer name bg netns "${ns}b"
  ip -n "${ns}g" addr add 10.202.1.1/24 dev ga; ip -n "${ns}a" addr add 10.202.1.2/24 dev ag
  ip -n "${ns}g" addr add 10.202.2.1/24 dev gb; ip -n "${ns}b" addr add 10.202.2.2/24 dev bg
  for d in ga gb; do ip -n "${ns}g" link set "$d" up; done
  ip -n "${ns}a" link set ag up; ip -n "${ns}b" link set bg up
fi

# one_round TRANSPORT -> prints the round trip in us
one_round() {
  local kind="$1" listen wrap=() rank_wrap0=() rank_wrap1=() addr0 addr1
  case "$kind" in
    unix) listen="unix:$tmp/gw.sock" ;;
    tcp) listen="tcp:127.0.0.1:0" ;;
    veth) listen="tcp:0.0.0.0:0"; wrap=(ip netns exec "${ns}g")
          rank_wrap0=(ip netns exec "${ns}a"); rank_wrap1=(ip netns exec "${ns}b") ;;
  esac
  rm -f "$tmp/env"   # never read the previous round's
  "${wrap[@]}" "$bin" gateway -n 2 --net configs/ideal.toml --time-factor 1 \
      --listen "$listen" --lib-dir "$tmp/lib" >"$tmp/env" 2>"$tmp/gw.err" &
  gw=$!
  for _ in $(seq 200); do grep -q '^e.g.' "$tmp/env" 2>/dev/null && break; sleep 0.05; done
  if ! grep -q '^e.g.' "$tmp/env"; then
    echo "the $kind gateway did not start:" >&2; cat "$tmp/gw.err" >&2; exit 1
  fi
  local gwaddr job secret port
  gwaddr=$(sed -n 's/^  MPINETSIM_GATEWAY=//p' "$tmp/env")
  job=$(sed -n 's/^  MPINETSIM_JOB=//p' "$tmp/env")
  secret=$(sed -n 's/^  MPINETSIM_SECRET=//p' "$tmp/env")
  port="${gwaddr##*:}"
  case "$kind" in
    veth) addr0="tcp:10.202.1.1:$port"; addr1="tcp:10.202.2.1:$port" ;;
    *) addr0="$gwaddr"; addr1="$gwaddr" ;;
  esac
  export LD_LIBRARY_PATH="$tmp/lib" MPINETSIM_JOB="$job" MPINETSIM_SECRET="$secret" PMI_SIZE=2
  MPINETSIM_GATEWAY="$addr1" PMI_RANK=1 "${rank_wrap1[@]}" "$tmp/pingpong" "$iters" 32 >/dev/null &
  local r1=$!
  local one_way
  one_way=$(MPINETSIM_GATEWAY="$addr0" PMI_RANK=0 "${rank_wrap0[@]}" "$tmp/pingpong" "$iters" 32 |
    sed -n 's/.*one_way_us=\([0-9.]*\).*/\1/p')
  wait "$r1"; wait "$gw"; gw=
  echo "2 * $one_way" | bc -l
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

kinds=(unix tcp)
[ "$veth" = 1 ] && kinds+=(veth)
for k in "${kinds[@]}"; do : >"$tmp/$k.txt"; done
for _ in $(seq "$rounds"); do
  for k in "${kinds[@]}"; do one_round "$k" >>"$tmp/$k.txt"; done
done
base=$(median <"$tmp/unix.txt")
best_base=$(sort -n "$tmp/unix.txt" | head -1)
printf '%-44s %9s %7s %9s %7s\n' "32-byte round trip, $rounds rounds x $iters" "best us" "x unix" "median" "x unix"
for k in "${kinds[@]}"; do
  m=$(median <"$tmp/$k.txt")
  b=$(sort -n "$tmp/$k.txt" | head -1)
  case "$k" in
    unix) label="Unix socket (unix:PATH)" ;;
    tcp) label="TCP loopback (tcp:127.0.0.1:PORT)" ;;
    veth) label="TCP over veth between network namespaces" ;;
  esac
  printf '%-44s %9.2f %7.2f %9.2f %7.2f   (runs: %s)\n' "$label" "$b" "$(echo "$b / $best_base" | bc -l)" \
    "$m" "$(echo "$m / $base" | bc -l)" "$(tr '\n' ' ' <"$tmp/$k.txt" | xargs printf '%.1f ')"
done
[ "$veth" = 1 ] || echo "(veth row skipped: needs root and ip netns)"
