#!/usr/bin/env bash
# The router's CPU per statement under sysbench: oltp_point_select (server-side prepared statements, COM_STMT_EXECUTE,
# binary rows) against each given router's MySQL listener in turn, the order turned every round; each run's CPU is the
# router process's utime + stime from /proc/PID/stat, divided by the statements sysbench counted. Prints each run, then
# the median per router and, for each router after the first, the median of its per-round ratios to the first (the
# routers of a round share the machine's load of that moment). CPU per statement holds on a machine other builds
# share, where transactions/s do not.
#   bench/sysbench-cpu.sh --router before=127.0.0.1:26312:b1:PID --router after=127.0.0.1:26322:a1:PID --warmup 2 --rounds 30
# (NAME=HOST:PORT:DATABASE:PID; the database holds sysbench's tables, made by `sysbench oltp_common ... prepare` through
# that router; --warmup N runs N rounds first that are printed and not counted, and give the routers compared the same
# history: started together, no profiler attached to one only, whose agent stays loaded. Two routers of the same build
# came out 5 % apart over 8 rounds here: a difference of a few per cent needs 20-30 rounds.)
set -euo pipefail
user=app password=secret tables=1 size=10000 threads=8 seconds=6 rounds=5 warmup=0 workload=oltp_point_select
names=()
declare -A at
while [ $# -gt 0 ]; do
  case "$1" in
    --router) names+=("${2%%=*}"); at[${2%%=*}]=${2#*=}; shift 2 ;;
    --user) user=$2; shift 2 ;; --password) password=$2; shift 2 ;; --tables) tables=$2; shift 2 ;;
    --size) size=$2; shift 2 ;; --threads) threads=$2; shift 2 ;; --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;; --warmup) warmup=$2; shift 2 ;; --workload) workload=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ ${#names[@]} -gt 0 ] || { echo "give at least one --router NAME=HOST:PORT:DATABASE:PID" >&2; exit 2; }
ticks=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
declare -A runs ratios
for r in $(seq $((warmup + rounds))); do
  k=$(( (r - 1) % ${#names[@]} ))
  line="round $r:"; [ "$r" -le "$warmup" ] && line="warm-up $r:"
  declare -A this=()
  for n in "${names[@]:$k}" "${names[@]:0:$k}"; do
    IFS=: read -r host port db pid <<<"${at[$n]}"
    c0=$(cpu "$pid")
    q=$(sysbench "$workload" --tables="$tables" --table-size="$size" --mysql-ssl=off --mysql-host="$host" --mysql-port="$port" \
        --mysql-user="$user" --mysql-password="$password" --mysql-db="$db" --threads="$threads" --time="$seconds" \
        --report-interval=0 run | awk '/queries:/ && !/performed/ { print $2; exit }')
    c1=$(cpu "$pid")
    us=$(awk -v t=$((c1 - c0)) -v q="$q" -v hz="$ticks" 'BEGIN { printf "%.1f", t * 1e6 / hz / q }')
    this[$n]=$us; line="$line $n $us µs ($q statements)"
  done
  echo "$line"
  [ "$r" -le "$warmup" ] && continue
  for n in "${names[@]}"; do
    runs[$n]="${runs[$n]:-} ${this[$n]}"
    ratios[$n]="${ratios[$n]:-} $(awk -v a="${this[$n]}" -v b="${this[${names[0]}]}" 'BEGIN { printf "%.3f", a / b }')"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for n in "${names[@]}"; do
  echo "$n: median $(echo "${runs[$n]}" | median) µs of router CPU per statement (runs:${runs[$n]})"
done
for n in "${names[@]:1}"; do
  echo "$n / ${names[0]}: median of the rounds' ratios $(echo "${ratios[$n]}" | median) (rounds:${ratios[$n]})"
done
