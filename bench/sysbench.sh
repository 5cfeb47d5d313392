#!/usr/bin/env bash
# sysbench's oltp_point_select, oltp_read_only and oltp_read_write through the router's MySQL listener
# (4 partitions) and straight at one MariaDB, side by side; prints transactions/s and the ratio. Also
# oltp_read_only_declared: oltp_read_only with its transactions declared READ ONLY (oltp_read_only_declared.lua).
# Needs Debian's sysbench (apt-get install sysbench) and running shards and router, e.g.:
#   ./lutra shards start --count 4 --dir /tmp/sb-shards --base-port 23400
#   ./lutra router --config router.yaml        # with mysql: { listen: 127.0.0.1:23507 } and the shards as backends
#   bench/sysbench.sh --router 127.0.0.1:23507 --user app --password secret --db social --direct 127.0.0.1:23400
# The direct run uses database sbtest_direct on the --direct server (created), as user root without a password.
set -euo pipefail
router=127.0.0.1:3307 user=app password=secret db=social direct=127.0.0.1:13306
tables=4 size=10000 threads=16 seconds=30
while [ $# -gt 0 ]; do
  case "$1" in
    --router) router=$2; shift 2 ;; --user) user=$2; shift 2 ;; --password) password=$2; shift 2 ;; --db) db=$2; shift 2 ;;
    --direct) direct=$2; shift 2 ;; --tables) tables=$2; shift 2 ;; --size) size=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;; --seconds) seconds=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v sysbench >/dev/null || { echo "sysbench is not installed (Debian: apt-get install sysbench)" >&2; exit 1; }
mysql_cli=$(command -v mariadb || command -v mysql)
"$mysql_cli" -h "${direct%:*}" -P "${direct#*:}" -uroot --skip-ssl -e "CREATE DATABASE IF NOT EXISTS sbtest_direct"
via_router=(--mysql-host="${router%:*}" --mysql-port="${router#*:}" --mysql-user="$user" --mysql-password="$password" --mysql-db="$db")
via_direct=(--mysql-host="${direct%:*}" --mysql-port="${direct#*:}" --mysql-user=root --mysql-password= --mysql-db=sbtest_direct)
common=(--tables="$tables" --table-size="$size" --mysql-ssl=off)
sysbench oltp_common "${common[@]}" "${via_router[@]}" cleanup >/dev/null 2>&1 || true
sysbench oltp_common "${common[@]}" "${via_direct[@]}" cleanup >/dev/null 2>&1 || true
sysbench oltp_common "${common[@]}" "${via_router[@]}" prepare
sysbench oltp_common "${common[@]}" "${via_direct[@]}" prepare
tps() { sysbench "$1" "${common[@]}" --threads="$threads" --time="$seconds" --report-interval=0 "${@:2}" run | awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }'; }
printf '| workload | threads | through Lutra tps | one MariaDB tps | ratio |\n|---|--:|--:|--:|--:|\n'
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for w in oltp_point_select oltp_read_only "$here/oltp_read_only_declared.lua" oltp_read_write; do
  l=$(tps "$w" "${via_router[@]}"); d=$(tps "$w" "${via_direct[@]}")
  printf '| %s | %d | %s | %s | %s |\n' "$(basename "$w" .lua)" "$threads" "$l" "$d" "$(awk -v l="$l" -v d="$d" 'BEGIN { printf "%.2f×", l / d }')"
done
