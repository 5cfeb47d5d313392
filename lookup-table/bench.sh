#!/bin/sh
# Lookup-table benchmarks (never part of ./mvnw verify). Usage, from the repository root:
#   lookup-table/bench.sh build                      # compile with -Pjmh
#   lookup-table/bench.sh jmh [JMH options]          # e.g. -p size=100000000 -p kind=dense,hash
#   lookup-table/bench.sh rounds R [JMH options]     # R JMH runs of one fork each; medians and per-round ratios to raw
#   lookup-table/bench.sh footprint KIND N [-XmxM]   # heap used per key, e.g. dense 1000000000 -Xmx1200m
#   lookup-table/bench.sh load FILE N                # csv load lines/s and snapshot write/read times
set -e
cd "$(dirname "$0")/.."
JAVA="${JAVA:-}"
if [ -z "$JAVA" ]; then
  for j in "$JAVA_HOME" /usr/lib/jvm/temurin-25* /usr/lib/jvm/*21* /usr/lib/jvm/*; do
    if [ -x "$j/bin/java" ] && "$j/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'; then JAVA="$j/bin/java"; break; fi
  done
fi
# A private copy of the compiled classes: a normal build of the module (by anyone) recompiles
# target/classes without the benchmarks and their META-INF/BenchmarkList.
CP="lookup-table/target/bench-classes:lookup-table/target/bench-lib/*"
cmd="$1"; shift || true
case "$cmd" in
  build) ./mvnw -B -q -pl lookup-table -Pjmh package -DskipTests
    rm -rf lookup-table/target/bench-classes && cp -r lookup-table/target/classes lookup-table/target/bench-classes ;;
  jmh) exec "$JAVA" -cp "$CP" org.openjdk.jmh.Main LookupBenchmark "$@" ;;
  rounds) r="$1"; shift; out=lookup-table/target/bench-rounds; rm -rf "$out"; mkdir -p "$out"
    for i in $(seq 1 "$r"); do
      "$JAVA" -cp "$CP" org.openjdk.jmh.Main LookupBenchmark -f 1 "$@" -rf csv -rff "$out/round-$i.csv" > "$out/round-$i.log" 2>&1
      echo "round $i/$r done"
    done
    exec "$JAVA" -cp "$CP" org.lutra.lookup.bench.Rounds "$out"/round-*.csv ;;
  footprint) kind="$1"; n="$2"; xmx="${3:--Xmx8g}"
    exec "$JAVA" "$xmx" -XX:+UseParallelGC -cp "$CP" org.lutra.lookup.bench.FootprintHarness "$kind" "$n" ;;
  load) exec "$JAVA" -Xmx2g -XX:+UseParallelGC -cp "$CP" org.lutra.lookup.bench.LoadHarness "$1" "$2" ;;
  *) echo "usage: $0 build | jmh [opts] | rounds R [opts] | footprint KIND N [-XmxM] | load FILE N" >&2; exit 2 ;;
esac
