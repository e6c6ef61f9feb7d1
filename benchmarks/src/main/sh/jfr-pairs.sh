#!/bin/bash
# In the Soft-RoCE VM (lab/rxe-vm): where a busy-polled round trip goes, Ibex against the minimal program (issue 18).
# Runs busy-pairs.sh's two pairs (Ibex's PingPongJvm server|client, MinimalPingPong server|client; C2-only JVMs with
# -Xbatch, 64 B, the loops' cqPollSpin) with JFR in all four JVMs, longer than busy-pairs does so that each loop or
# main thread gets thousands of samples in its measured runs, and the same pairs without JFR beside them (what JFR
# costs). Each round: Ibex+JFR, minimal+JFR, minimal, Ibex (the next round reversed). From the repository root:
#
#   mvn -B -ntp -o -q -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   IBEX_VM_KERNEL_ARGS="tsc=reliable" flock /tmp/ibex-vm.lock lab/rxe-vm --results /tmp/jfr --timeout 2400 -- \
#       env JAR=$PWD/benchmarks/target/benchmarks.jar OUT=/tmp/jfr bash benchmarks/src/main/sh/jfr-pairs.sh
#
# then on the host: java benchmarks/src/main/sh/JfrSplit.java /tmp/jfr (docs/benchmarks.md, "Where a busy-polled Ibex
# round trip goes in the guest (JFR)").
# JAR, OUT as busy-pairs.sh; ROUNDS (default 2); PERIOD (default 2ms): jdk.ExecutionSample's and
# jdk.NativeMethodSample's period; WARMUP (default 60,000: past the credit-update path's C2 threshold) the Ibex
# client's warm-up round trips; N (5,000) round trips per run; IBEX_RUNS (12) the Ibex client's measured runs;
# MINI_RUNS (15) the minimal client's runs, of which the first 3 (15,000 round trips) are its warm-up.
# PLAIN=0: no pairs without JFR; VFLAGS (e.g. -Dibex.bench.window=1024, comma-separated): each round also runs an
# Ibex pair with JFR and these flags (ibexvjfrN), after the other two.
# Each client's stdout lines are prefixed with the guest's epoch seconds when printed (OUT/NAME.c), so the analysis
# keeps the samples of the measured runs only; the recordings are OUT/NAME-server.jfr and OUT/NAME-client.jfr.
set -u
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
R=${OUT:?OUT: the results directory}
JAR=${JAR:?JAR: the benchmarks jar}
ROUNDS=${ROUNDS:-2}
PERIOD=${PERIOD:-2ms}
WARMUP=${WARMUP:-60000}
N=${N:-5000}
IBEX_RUNS=${IBEX_RUNS:-12}
MINI_RUNS=${MINI_RUNS:-15}
ADDR=${IBEX_VM_ADDR:-169.254.77.1}
DEV=${IBEX_VM_DEV:-rxe0}
J="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx512m -XX:+UseSerialGC -XX:-TieredCompilation -Xbatch"
PORT=7950
CS=/sys/devices/system/clocksource/clocksource0
echo "start $(date -u +%T) load $(cat /proc/loadavg) nproc $(nproc) clock $(cat $CS/current_clocksource) (available: $(cat $CS/available_clocksource))"
echo "settings: ${VFLAGS:+variant flags $VFLAGS, }period $PERIOD, Ibex warm-up $WARMUP + $IBEX_RUNS runs of $N, minimal $MINI_RUNS runs of $N"

# jfr NAME SIDE: the JVM flag recording OUT/NAME-SIDE.jfr
jfr() {
  echo "-XX:StartFlightRecording:filename=$R/$1-$2.jfr,settings=profile,jdk.ExecutionSample#period=$PERIOD,jdk.NativeMethodSample#period=$PERIOD"
}

# pair NAME CLASS RUNS JFR(0|1) [extra JVM flags]: a server, once it listens a client (its lines time-stamped)
pair() {
  local name=$1 cls=$2 runs=$3 rec=$4 extra=${5:-} sj="" cj=""
  PORT=$((PORT + 1))
  if [ "$rec" = 1 ]; then sj=$(jfr "$name" server); cj=$(jfr "$name" client); fi
  local t0; t0=$(date +%s)
  $J $extra $sj -Dibex.bench.runs=$runs -cp "$JAR" dev.ibex.bench.vm.$cls server $ADDR $PORT $N 64 > $R/$name.s 2>&1 &
  local sp=$!
  for _ in $(seq 1 2400); do grep -q listening $R/$name.s && break; kill -0 $sp 2>/dev/null || break; sleep 0.1; done
  local tl; tl=$(date +%s)
  timeout 600 $J $extra $cj -Dibex.bench.runs=$runs -cp "$JAR" dev.ibex.bench.vm.$cls client $ADDR $PORT $N 64 2>&1 \
      | while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done > $R/$name.c
  local rc=${PIPESTATUS[0]}
  local tc; tc=$(date +%s)
  for _ in $(seq 1 600); do kill -0 $sp 2>/dev/null || break; sleep 0.2; done
  kill $sp 2>/dev/null
  wait $sp
  local src=$?
  echo "$name start->listening $((tl - t0)) s, client $((tc - tl)) s, rc $rc/$src: $(grep -h 'one-way' $R/$name.c | tail -1 | cut -d' ' -f2-)"
  grep -h "pingpong settings" $R/$name.c | cut -d' ' -f2- | sed 's/^/    /'
  grep -h "run .* of" $R/$name.c | cut -d' ' -f2- | sed 's/^/    /'
  if [ $rc != 0 ]; then
    echo "  FAILED client: $(tr '\n' ' ' < $R/$name.c | cut -c1-600)"
    echo "  server: $(tr '\n' ' ' < $R/$name.s | cut -c1-600)"
  fi
}

. "$(dirname "${BASH_SOURCE[0]}")/send-lat.sh" # lat NAME: ib_send_lat between the pairs

ibex() { pair "$1" PingPongJvm $IBEX_RUNS "$2" "-Dibex.bench.warmup=$WARMUP ${3:-}"; }
mini() { pair "$1" MinimalPingPong $MINI_RUNS "$2"; }

lat lat1
for i in $(seq 1 $ROUNDS); do
  if [ $((i % 2)) = 1 ]; then
    ibex ibexjfr$i 1; mini minijfr$i 1
    [ "${PLAIN:-1}" = 0 ] || { mini mini$i 0; ibex ibex$i 0; }
  else
    mini minijfr$i 1; ibex ibexjfr$i 1
    [ "${PLAIN:-1}" = 0 ] || { ibex ibex$i 0; mini mini$i 0; }
  fi
  [ -z "${VFLAGS:-}" ] || ibex ibexvjfr$i 1 "$(echo "$VFLAGS" | tr ',' ' ')"

done
lat lat2
echo "end $(date -u +%T) load $(cat /proc/loadavg)"
