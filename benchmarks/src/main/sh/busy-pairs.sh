#!/bin/bash
# In the Soft-RoCE VM (lab/rxe-vm): Ibex's busy-polling ping-pong with its server and client in two JVMs
# (PingPongJvm server|client) against the minimal Java ping-pong doing the same calls (MinimalPingPong), both in
# C2-only JVMs with -Xbatch, pair after pair, alternating which goes first, with ib_send_lat before, between and after
# (docs/benchmarks.md, "Busy-polling: Ibex against the minimal program, pair by pair"). From the repository root:
#
#   mvn -B -ntp -o -q -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   flock /tmp/ibex-vm.lock lab/rxe-vm --results /tmp/busy --timeout 2700 -- \
#       env JAR=$PWD/benchmarks/target/benchmarks.jar OUT=/tmp/busy bash benchmarks/src/main/sh/busy-pairs.sh
#
# JAR: the benchmarks jar; OUT: the results directory (writable in the guest); PAIRS (default 6): pairs of each;
# PROFILE=1: one more Ibex pair, not counted, recording JFR on both sides (OUT/ibex-<pid>.jfr, 1 ms samples);
# WARMUP=N: the Ibex client's warm-up round trips (default 12,000: what runs every fourth message stays interpreted).
# VARIANTS: the Ibex variants each round runs beside the minimal program, NAME[:FLAG[,FLAG…]] separated by spaces
# (default "ibex": one pair per round, Ibex then minimal or the reverse). With more, each round runs every variant and
# the minimal program once, the order rotated by one each round. The issue-18 A/B (docs/benchmarks.md):
#   PAIRS=3 VARIANTS="ibex look256:-Dibex.bench.look=256 win1024:-Dibex.bench.window=1024 \
#       both:-Dibex.bench.look=256,-Dibex.bench.window=1024"                 # ~40 min
# (-Dibex.bench.look: the loops' cqPollSpinLookInterval; -Dibex.bench.window: the receive window; PingPongJvm
# prints a "pingpong settings" line, repeated here.)
# A variant may go on NAME:FLAGS:CLOCKSOURCE:JAR (fields may be empty): CLOCKSOURCE (e.g. tsc, hpet) is written to
# the guest's current_clocksource before its pair (the others, and ib_send_lat, run at the boot's own), JAR replaces
# $JAR for it. A variant whose NAME starts with "mini" runs the minimal program, with its FLAGS (e.g. posting Ibex's way:
# -Dibex.bench.mini.inline=true, -Dibex.bench.mini.srq=true; MinimalPingPong); when one does, the plain "mini" is not
# added. Ibex without inline SENDs: -Dibex.bench.inline=0; Ibex on its own receive window instead of its loop's SRQ:
# -Dibex.bench.ownWindow=true (PingPongJvm). The posting A/B (docs/benchmarks.md, issue 18):
#   PAIRS=2 VARIANTS="ibex ibexnoinline:-Dibex.bench.inline=0 mini miniinline:-Dibex.bench.mini.inline=true \
#       miniboth:-Dibex.bench.mini.inline=true,-Dibex.bench.mini.srq=true"                         # ~30 min
# The clock A/B (docs/benchmarks.md; tsc offered by the guest kernel's tsc=reliable):
#   IBEX_VM_KERNEL_ARGS="tsc=reliable" flock /tmp/ibex-vm.lock lab/rxe-vm … -- env JAR=… OUT=… PAIRS=3 \
#       VARIANTS="ibex ibexnew:::/work/jars/new.jar mini ibextsc::tsc minitsc::tsc" bash …/busy-pairs.sh
# Each pair prints its figures line and a line per measured run; the Ibex client runs 12,000 round trips of warm-up,
# then 4 runs of 2,500; the minimal client 9 runs of 2,500, of which the last 4 (after 12,500) compare.
set -u
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
R=${OUT:?OUT: the results directory}
PAIRS=${PAIRS:-6}
ADDR=${IBEX_VM_ADDR:-169.254.77.1}
DEV=${IBEX_VM_DEV:-rxe0}
N=2500
J="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx512m -XX:+UseSerialGC -XX:-TieredCompilation -Xbatch"
IBEX=${WARMUP:+-Dibex.bench.warmup=$WARMUP}
VARIANTS=${VARIANTS:-ibex}
PORT=7900
CS=/sys/devices/system/clocksource/clocksource0
CLOCK0=$(cat $CS/current_clocksource)
echo "start $(date -u +%T) load $(cat /proc/loadavg) nproc $(nproc) clock $CLOCK0 (available: $(cat $CS/available_clocksource))"

# clock SOURCE: the guest's clocksource for what follows (empty: the boot's own)
clock() {
  local want=${1:-$CLOCK0}
  [ "$(cat $CS/current_clocksource)" = "$want" ] && return
  echo "$want" > $CS/current_clocksource || echo "  cannot set clocksource $want"
  echo "  clocksource now $(cat $CS/current_clocksource)"
}

# pair NAME CLASS RUNS [extra JVM flags [JAR]]: a server, once it listens a client; the client's lines
pair() {
  local name=$1 cls=$2 runs=$3 extra=${4:-} jar=${5:-$JAR}
  PORT=$((PORT + 1))
  local t0; t0=$(date +%s)
  $J $extra -Dibex.bench.runs=$runs -cp "$jar" dev.ibex.bench.vm.$cls server $ADDR $PORT $N 64 > $R/$name.s 2>&1 &
  local sp=$!
  for _ in $(seq 1 2400); do grep -q listening $R/$name.s && break; kill -0 $sp 2>/dev/null || break; sleep 0.1; done
  local tl; tl=$(date +%s)
  timeout 480 $J $extra -Dibex.bench.runs=$runs -cp "$jar" dev.ibex.bench.vm.$cls client $ADDR $PORT $N 64 \
      > $R/$name.c 2>&1
  local rc=$?
  local tc; tc=$(date +%s)
  for _ in $(seq 1 300); do kill -0 $sp 2>/dev/null || break; sleep 0.2; done
  kill $sp 2>/dev/null
  wait $sp
  local src=$?
  echo "$name start->listening $((tl - t0)) s, client $((tc - tl)) s, rc $rc/$src: $(grep -h 'one-way' $R/$name.c | tail -1)"
  grep -h "pingpong settings" $R/$name.c | sed 's/^/    /'
  grep -h "run .* of" $R/$name.c | sed 's/^/    /'
  if [ $rc != 0 ]; then
    echo "  FAILED client: $(tr '\n' ' ' < $R/$name.c | cut -c1-600)"
    echo "  server: $(tr '\n' ' ' < $R/$name.s | cut -c1-600)"
    rdma resource show cm_id
  fi
}

. "$(dirname "${BASH_SOURCE[0]}")/send-lat.sh" # lat NAME: ib_send_lat between the pairs

# run VARIANT ROUND: one pair of the variant NAME[:FLAGS[:CLOCKSOURCE[:JAR]]] (NAME mini*: the minimal program)
run() {
  local v=$1 i=$2 name flags cs jar
  IFS=: read -r name flags cs jar <<< "$v"
  flags=$(echo "$flags" | tr ',' ' ')
  clock "$cs"
  case $name in
    mini) pair mini$i MinimalPingPong 9 "$flags" "$jar" ;;
    mini*) pair $name-$i MinimalPingPong 9 "$flags" "$jar" ;;
    ibex) pair ibex$i PingPongJvm 4 "$IBEX $flags" "$jar" ;;
    *) pair $name-$i PingPongJvm 4 "$IBEX $flags" "$jar" ;;
  esac
  [ -z "$cs" ] || echo "  clocksource after the pair: $(cat $CS/current_clocksource)"
  clock ""
}

lat lat1
for i in $(seq 1 $PAIRS); do
  case " $VARIANTS" in *" mini"*) set -- $VARIANTS;; *) set -- $VARIANTS mini;; esac
  if [ $# = 2 ]; then # one variant: alternate which goes first, as before
    if [ $((i % 2)) = 1 ]; then run "$1" $i; run "$2" $i; else run "$2" $i; run "$1" $i; fi
  else
    n=$#; all=("$@")
    for k in $(seq 0 $((n - 1))); do run "${all[$(( (k + i - 1) % n ))]}" $i; done
  fi
  [ $i = $(( (PAIRS + 1) / 2 )) ] && lat lat2
done
lat lat3
if [ "${PROFILE:-0}" = 1 ]; then
  pair ibexjfr PingPongJvm 4 \
      "$IBEX -XX:StartFlightRecording:filename=$R/ibex-%p.jfr,settings=profile,jdk.ExecutionSample#period=1ms,jdk.NativeMethodSample#period=1ms"
fi
echo "end $(date -u +%T) load $(cat /proc/loadavg)"
