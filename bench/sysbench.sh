#!/usr/bin/env bash
# sysbench's oltp_* workloads through the router's MySQL listener and straight at one MariaDB, side by side, rounds
# interleaved; prints a Markdown table of transactions/s (medians over rounds) and each path's ratio to one MariaDB.
# Paths: one MariaDB (--direct); with --forwarders the same MariaDB through the two byte-copying forwarders of
# `./lutra bench point` (threads, event loop: what any proxy's extra hop costs here, the floor); the router (--router,
# e.g. 4 partitions); with --router1 a second router whose one partition is on --direct (proxy cost without scatter).
# oltp_read_only_declared is oltp_read_only with its transactions declared READ ONLY (oltp_read_only_declared.lua).
# Needs Debian's sysbench (apt-get install sysbench) and running shards and routers, e.g.:
#   ./lutra shards start --count 4 --dir /tmp/sb-shards --base-port 23400
#   ./lutra router --config router.yaml        # with mysql: { listen: 127.0.0.1:23507 } and the shards as backends
#   bench/sysbench.sh --router 127.0.0.1:23507 --user app --password secret --db social --direct 127.0.0.1:23400 --forwarders
# The direct (and forwarded) runs use database sbtest_direct on the --direct server (created), as user root without a password.
set -euo pipefail
router=127.0.0.1:3307 router1="" user=app password=secret db=social direct=127.0.0.1:13306
tables=4 size=10000 threads=16 seconds=30 rounds=1 forwarders=false
workloads="oltp_point_select oltp_read_only oltp_read_only_declared oltp_read_write"
while [ $# -gt 0 ]; do
  case "$1" in
    --router) router=$2; shift 2 ;; --router1) router1=$2; shift 2 ;; --user) user=$2; shift 2 ;; --password) password=$2; shift 2 ;;
    --db) db=$2; shift 2 ;; --direct) direct=$2; shift 2 ;; --tables) tables=$2; shift 2 ;; --size) size=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;; --seconds) seconds=$2; shift 2 ;; --rounds) rounds=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;; --forwarders) forwarders=true; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v sysbench >/dev/null || { echo "sysbench is not installed (Debian: apt-get install sysbench)" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mysql_cli=$(command -v mariadb || command -v mysql)
"$mysql_cli" -h "${direct%:*}" -P "${direct#*:}" -uroot --skip-ssl -e "CREATE DATABASE IF NOT EXISTS sbtest_direct"

at() { echo --mysql-host="${1%:*}" --mysql-port="${1#*:}"; }
declare -A target
names=(direct)
target[direct]="$(at "$direct") --mysql-user=root --mysql-password= --mysql-db=sbtest_direct"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
if $forwarders; then
  for design in threads event-loop; do
    log=$(mktemp)
    if [ "$design" = event-loop ]; then "$here/../lutra" bench forward --to "$direct" --event-loop >"$log" 2>&1 &
    else "$here/../lutra" bench forward --to "$direct" >"$log" 2>&1 & fi
    pids+=($!)
    for _ in $(seq 600); do grep -q '^forwarding .*)$' "$log" && break; sleep 0.1; done
    port=$(sed -n 's/^forwarding 127.0.0.1:\([0-9]*\) .*/\1/p' "$log")
    [ -n "$port" ] || { echo "the $design forwarder did not start:" >&2; cat "$log" >&2; exit 1; }
    names+=("forwarder-$design")
    target[forwarder-$design]="$(at "127.0.0.1:$port") --mysql-user=root --mysql-password= --mysql-db=sbtest_direct"
  done
fi
if [ -n "$router1" ]; then
  names+=(lutra-1p)
  target[lutra-1p]="$(at "$router1") --mysql-user=$user --mysql-password=$password --mysql-db=$db"
fi
names+=(lutra)
target[lutra]="$(at "$router") --mysql-user=$user --mysql-password=$password --mysql-db=$db"

common=(--tables="$tables" --table-size="$size" --mysql-ssl=off)
for n in "${names[@]}"; do
  case "$n" in forwarder-*) continue ;; esac   # the forwarders reach the direct database
  # shellcheck disable=SC2086
  sysbench oltp_common "${common[@]}" ${target[$n]} cleanup >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  sysbench oltp_common "${common[@]}" ${target[$n]} prepare >/dev/null
done

tps() { # workload target
  local w=$1
  [ "$w" = oltp_read_only_declared ] && w="$here/oltp_read_only_declared.lua"
  # shellcheck disable=SC2086
  sysbench "$w" "${common[@]}" --threads="$threads" --time="$seconds" --report-interval=0 ${target[$2]} run \
    | awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A runs
for r in $(seq "$rounds"); do
  for w in $workloads; do
    # the order of the paths turns every round, so no path always runs first after another workload
    order=("${names[@]:$(( (r - 1) % ${#names[@]} ))}" "${names[@]:0:$(( (r - 1) % ${#names[@]} ))}")
    line="round $r, $w:"
    for n in "${order[@]}"; do
      t=$(tps "$w" "$n"); runs[$w,$n]="${runs[$w,$n]:-} $t"; line="$line $n $t"
    done
    echo "$line" >&2
  done
done

header="| workload | threads | one MariaDB tps"
rule="|---|--:|--:"
for n in "${names[@]:1}"; do header="$header | $n tps | ratio"; rule="$rule|--:|--:"; done
printf '%s |\n%s|\n' "$header" "$rule"
for w in $workloads; do
  d=$(echo "${runs[$w,direct]}" | median)
  row="| $w | $threads | $d"
  for n in "${names[@]:1}"; do
    v=$(echo "${runs[$w,$n]}" | median)
    row="$row | $v | $(awk -v l="$v" -v d="$d" 'BEGIN { printf "%.2f×", l / d }')"
  done
  echo "$row |"
done
