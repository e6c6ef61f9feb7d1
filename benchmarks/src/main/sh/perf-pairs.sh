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
#
# MEASURE=pages measures instead the pages each JVM touches (docs/benchmarks.md, "The pages a round trip touches"):
# its referenced bits cleared (/proc/PID/clear_refs), then after a window of W seconds (WINDOWS, default
# "0.02 0.2 2", each twice) the kB /proc/PID/smaps counts as Referenced, by kind of mapping: the working set of that
# window (reading smaps takes the guest a while, so a window is longer than W: each line gives its length).
# THP=never sets transparent huge pages off first (a referenced huge page counts 2 MiB).
set -u
OUT=${1:?OUT: the results directory}; JAR=${2:?JAR: the benchmarks jar}; shift 2
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
echo -1 > /proc/sys/kernel/perf_event_paranoid; echo 0 > /proc/sys/kernel/kptr_restrict
ADDR=${IBEX_VM_ADDR:-169.254.77.1}; N=40000
J="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx512m \
-XX:+UseSerialGC -XX:-TieredCompilation -Xbatch -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
PORT=7990
MEASURE=${MEASURE:-perf}
[ -n "${THP:-}" ] && echo "$THP" > /sys/kernel/mm/transparent_hugepage/enabled
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
# The kB of pages referenced in each kind of mapping, from the smaps files given: heap (an anonymous mapping of 500
# MiB or more: run the pair with -Xms512m so the heap is one), code (executable anonymous: the JIT's), files
# (libraries, the CDS archive), other anonymous (thread stacks, malloc, the JVM's own); then all. Parsed after the
# pair, as python under TCG takes seconds per file.
referenced() {
  python3 - "$@" <<'PY'
import sys, collections
for name in sys.argv[1:]:
    kinds = collections.Counter(); kind = 'anon'
    for line in open(name):
        f = line.split()
        if '-' in f[0] and len(f) >= 5 and not f[0].endswith(':'):
            lo, hi = (int(x, 16) for x in f[0].split('-'))
            path = f[5] if len(f) > 5 else ''
            kind = ('files' if path.startswith('/') else 'code' if 'x' in f[1]
                    else 'heap' if hi - lo >= 500 << 20 else 'anon')
        elif f[0] == 'Referenced:':
            kinds[kind] += int(f[1])
    print('    %s: %s all %d kB' % (name.rsplit('/', 1)[-1],
          ' '.join('%s %d' % (k, kinds[k]) for k in ('heap', 'code', 'anon', 'files')), sum(kinds.values())))
PY
}
# Clears both JVMs' referenced bits, waits $1 s, keeps each one's smaps as OUT/NAME.$2.{server,client}.smaps.
pages() {
  local t0 t1
  t0=$(date +%s%N)
  echo 1 > /proc/$sp/clear_refs; echo 1 > /proc/$cj/clear_refs
  sleep "$1"
  cat /proc/$sp/smaps > $OUT/$name.$2.server.smaps; cat /proc/$cj/smaps > $OUT/$name.$2.client.smaps
  t1=$(date +%s%N)
  echo "    window $2: $1 s (measured $(( (t1 - t0) / 1000000 )) ms)"
}
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
  if [ "$MEASURE" = pages ]; then
    k=0
    for w in ${WINDOWS:-0.02 0.2 2}; do pages "$w" $((k += 1)); pages "$w" $((k += 1)); done > $OUT/$name.pages
  else
    perf record -e cpu-clock -F 1999 -p $sp,$cj -o $OUT/$name.data -- sleep 5 > /dev/null 2>&1
  fi
  wait $cp
  kill $sp 2>/dev/null
  wait $sp
  echo "$name ($flags):"
  grep -h "run .* of" $OUT/$name.c | sed 's/^/    /'
  if [ "$MEASURE" = pages ]; then cat $OUT/$name.pages; referenced $OUT/$name.*.smaps; continue; fi
  perf report -i $OUT/$name.data --no-children --sort sym --stdio 2>/dev/null | grep -v '^#' | grep '%' > $OUT/$name.sym
  perf report -i $OUT/$name.data --no-children --sort dso --stdio 2>/dev/null | grep -v '^#' | grep '%' | head -8 \
      | sed 's/^/    /'
done
