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
# PIN=1 pins every pair's server to CPU 0 and its client to CPU 1 (taskset -c, as send-lat.sh pins ib_send_lat; default
# unpinned); a variant whose NAME ends in "+pin" is pinned whatever PIN says, so one boot compares both ways (a pinned
# JVM runs its JIT and GC threads on its one CPU too: with -Xbatch a compile stops the thread that asked for it, and
# the compared runs come after the warm-up, when nothing compiles). The pinning A/B (docs/benchmarks.md, issue 18):
#   PAIRS=2 VARIANTS="ibex ibex+pin miniboth:-Dibex.bench.mini.inline=true,-Dibex.bench.mini.srq=true \
#       miniboth+pin:-Dibex.bench.mini.inline=true,-Dibex.bench.mini.srq=true \
#       miniinline+pin:-Dibex.bench.mini.inline=true"                          # 14 min (19 with CPUS=1)
# CPUS=1: each pair also samples, about once a second, the CPU of each JVM's busiest thread (the spinning loop once
# warm; OUT/NAME.cpu: time, then server and client as CPU:ticks) and prints where both spun and the last 8 samples. Off
# by default: under TCG a sample takes ~0.3 s of a vCPU the spinning pair needs.
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
case "${PIN:-0} $VARIANTS" in
  1\ *|*+pin*) command -v taskset > /dev/null || { echo "no taskset (util-linux): PIN and +pin need it"; exit 1; } ;;
esac

# clock SOURCE: the guest's clocksource for what follows (empty: the boot's own)
clock() {
  local want=${1:-$CLOCK0}
  [ "$(cat $CS/current_clocksource)" = "$want" ] && return
  echo "$want" > $CS/current_clocksource || echo "  cannot set clocksource $want"
  echo "  clocksource now $(cat $CS/current_clocksource)"
}

# cpus SERVER_PID CLIENT_PARENT_PID: while the client runs, once a second, the CPU of each JVM's busiest thread since
# the last sample and its ticks (USER_HZ) then; the client JVM is the child of CLIENT_PARENT_PID (timeout). Builtins
# only in the loop but sleep, to disturb the spinning pair as little as possible.
cpus() {
  local sp=$1 cp=$2 jp="" p t line d tick bd bcpu out
  local -a f
  local -A last
  while kill -0 "$cp" 2>/dev/null; do
    if [ -z "$jp" ]; then
      read -r jp _ < /proc/$cp/task/$cp/children 2>/dev/null
      [ -z "$jp" ] || echo "affinity server $(grep Cpus_allowed_list /proc/$sp/status | cut -f2)," \
          "client $(grep Cpus_allowed_list /proc/$jp/status | cut -f2)"
    fi
    printf -v out '%(%T)T' -1
    for p in $sp $jp; do
      bd=-1 bcpu=-
      for t in /proc/$p/task/*; do
        read -r line < $t/stat 2>/dev/null || continue
        f=(${line##*) })
        tick=$((f[11] + f[12]))
        d=$((tick - ${last[$t]:-$tick}))
        last[$t]=$tick
        if [ $d -gt $bd ]; then bd=$d bcpu=${f[36]}; fi
      done
      out+=" $bcpu:$bd"
    done
    echo "$out"
    sleep 1
  done
}

# pair NAME CLASS RUNS [extra JVM flags [JAR [PIN]]]: a server, once it listens a client; the client's lines; PIN 1:
# the server on CPU 0, the client on CPU 1
pair() {
  local name=$1 cls=$2 runs=$3 extra=${4:-} jar=${5:-$JAR} pin=${6:-0} tsrv="" tcli=""
  [ "$pin" = 1 ] && tsrv="taskset -c 0" tcli="taskset -c 1"
  PORT=$((PORT + 1))
  local t0; t0=$(date +%s)
  $tsrv $J $extra -Dibex.bench.runs=$runs -cp "$jar" dev.ibex.bench.vm.$cls server $ADDR $PORT $N 64 > $R/$name.s 2>&1 &
  local sp=$!
  for _ in $(seq 1 2400); do grep -q listening $R/$name.s && break; kill -0 $sp 2>/dev/null || break; sleep 0.1; done
  local tl; tl=$(date +%s)
  local aff; aff=$(grep Cpus_allowed_list /proc/$sp/status 2>/dev/null | cut -f2)
  timeout 480 $tcli $J $extra -Dibex.bench.runs=$runs -cp "$jar" dev.ibex.bench.vm.$cls client $ADDR $PORT $N 64 \
      > $R/$name.c 2>&1 &
  local cp=$!
  local mp=""
  if [ "${CPUS:-0}" = 1 ]; then cpus $sp $cp > $R/$name.cpu 2>/dev/null & mp=$!; fi
  wait $cp
  local rc=$?
  [ -z "$mp" ] || wait $mp
  local tc; tc=$(date +%s)
  for _ in $(seq 1 300); do kill -0 $sp 2>/dev/null || break; sleep 0.2; done
  kill $sp 2>/dev/null
  wait $sp
  local src=$?
  echo "$name start->listening $((tl - t0)) s, client $((tc - tl)) s, rc $rc/$src: $(grep -h 'one-way' $R/$name.c | tail -1)"
  grep -h "pingpong settings" $R/$name.c | sed 's/^/    /'
  grep -h "run .* of" $R/$name.c | sed 's/^/    /'
  echo "    pinned $([ "$pin" = 1 ] && echo "yes (client taskset -c 1)" || echo no), server's CPUs $aff"
  [ -z "$mp" ] || awk -v pin="$pin" '/^affinity/ { aff = $0; next }
      { split($2, s, ":"); split($3, c, ":"); if (s[2] < 25 || c[2] < 25) next
        k = s[1] == c[1] ? "same CPU" : "s" s[1] "c" c[1]; n[k]++; if (k != prev && prev != "") sw++; prev = k
        last = last " " s[1] c[1]; if (++m > 8) last = substr(last, 4) }
      END { printf "    pinned %s (%s); both spinning, 1 s samples:", pin ? "yes" : "no", aff
            for (k in n) printf " %s %d,", k, n[k]
            printf " %d switches; last 8 (server, client CPU):%s\n", sw, last }' \
      $R/$name.cpu
  if [ $rc != 0 ]; then
    echo "  FAILED client: $(tr '\n' ' ' < $R/$name.c | cut -c1-600)"
    echo "  server: $(tr '\n' ' ' < $R/$name.s | cut -c1-600)"
    rdma resource show cm_id
  fi
}

. "$(dirname "${BASH_SOURCE[0]}")/send-lat.sh" # lat NAME: ib_send_lat between the pairs

# run VARIANT ROUND: one pair of the variant NAME[:FLAGS[:CLOCKSOURCE[:JAR]]] (NAME mini*: the minimal program)
run() {
  local v=$1 i=$2 name flags cs jar pin=${PIN:-0}
  IFS=: read -r name flags cs jar <<< "$v"
  flags=$(echo "$flags" | tr ',' ' ')
  case $name in *+pin) pin=1 ;; esac
  clock "$cs"
  case $name in
    mini) pair mini$i MinimalPingPong 9 "$flags" "$jar" $pin ;;
    mini*) pair $name-$i MinimalPingPong 9 "$flags" "$jar" $pin ;;
    ibex) pair ibex$i PingPongJvm 4 "$IBEX $flags" "$jar" $pin ;;
    *) pair $name-$i PingPongJvm 4 "$IBEX $flags" "$jar" $pin ;;
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
