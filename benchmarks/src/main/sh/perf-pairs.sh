#!/bin/bash
# In the Soft-RoCE VM (lab/rxe-vm): busy-polling ping-pong pairs (PingPongJvm or MinimalPingPong, server under
# taskset -c 0, client under taskset -c 1, C2-only JVMs with -Xbatch as busy-pairs.sh runs them), each profiled with
# the guest's perf (cpu-clock, 1999 Hz, both JVMs, 5 s of the measured runs; JIT frames named through the JVMs'
# perf maps) — where a round trip's time goes, the kernel's share (rxe runs inside ibv_post_send) included
# (docs/benchmarks.md, "The guest's price on a working set"). From the repository root:
#
#   mvn -B -ntp -o -q -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip=true
#   cp benchmarks/target/benchmarks.jar /work/jars/b.jar        # the guest's /tmp is its own
#   M="MinimalPingPong|9|-Dibex.bench.mini.inline=true -Dibex.bench.mini.srq=true"
#   IBEX_VM_KERNEL_ARGS="tsc=reliable" flock /tmp/ibex-vm.lock lab/rxe-vm --results /tmp/pp --timeout 2000 -- \
#       bash benchmarks/src/main/sh/perf-pairs.sh /tmp/pp /work/jars/b.jar "mini|$M|run 5 of" \
#       "ibex|PingPongJvm|4||run 1 of" "mini64|$M -Dibex.bench.mini.touchPages=64|run 5 of"      # ~2 min a pair
#
# A pair is NAME|CLASS|RUNS|JVM FLAGS|LINE: the profile starts once the client printed LINE (the Ibex client's first
# measured run; the minimal client's fifth of 9, after its JIT). Each pair writes OUT/NAME.{s,c} (the programs'
# output), NAME.data (perf), NAME.sym (self time by symbol) and prints its run lines and its split by DSO. The time per
# round trip of a symbol: its share × 2 × the round trip (both threads spin, so both are always on a CPU).
set -u
OUT=${1:?OUT: the results directory}; JAR=${2:?JAR: the benchmarks jar}; shift 2
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
echo -1 > /proc/sys/kernel/perf_event_paranoid; echo 0 > /proc/sys/kernel/kptr_restrict
ADDR=${IBEX_VM_ADDR:-169.254.77.1}; N=40000
J="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx512m \
-XX:+UseSerialGC -XX:-TieredCompilation -Xbatch -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
PORT=7990
for v in "$@"; do
  IFS='|' read -r name cls runs flags waitfor <<< "$v"
  PORT=$((PORT + 1))
  taskset -c 0 $J $flags -Dibex.bench.runs=$runs -cp $JAR dev.ibex.bench.vm.$cls server $ADDR $PORT $N 64 \
      > $OUT/$name.s 2>&1 &
  sp=$!
  for _ in $(seq 1 2400); do grep -q listening $OUT/$name.s && break; sleep 0.1; done
  taskset -c 1 $J $flags -Dibex.bench.runs=$runs -cp $JAR dev.ibex.bench.vm.$cls client $ADDR $PORT $N 64 \
      > $OUT/$name.c 2>&1 &
  cp=$!
  for _ in $(seq 1 6000); do grep -q "$waitfor" $OUT/$name.c && break; kill -0 $cp 2>/dev/null || break; sleep 0.1; done
  cj=$(pgrep -f "dev.ibex.bench.vm.$cls client" | head -1)
  perf record -e cpu-clock -F 1999 -p $sp,$cj -o $OUT/$name.data -- sleep 5 > /dev/null 2>&1
  wait $cp
  kill $sp 2>/dev/null
  wait $sp
  echo "$name ($flags):"
  grep -h "run .* of" $OUT/$name.c | sed 's/^/    /'
  perf report -i $OUT/$name.data --no-children --sort sym --stdio 2>/dev/null | grep -v '^#' | grep '%' > $OUT/$name.sym
  perf report -i $OUT/$name.data --no-children --sort dso --stdio 2>/dev/null | grep -v '^#' | grep '%' | head -8 \
      | sed 's/^/    /'
done
