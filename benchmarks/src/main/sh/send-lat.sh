# Sourced by busy-pairs.sh and jfr-pairs.sh (in the Soft-RoCE VM): lat NAME runs ib_send_lat -s 64 -n 1000 with
# its server on CPU 0 and its client on CPU 1 (as VmBench runs it), results in $R/NAME.s and $R/NAME.c, and prints
# the 64 B line. Uses the caller's DEV, ADDR, R and PORT (incremented per run).
lat() {
  local name=$1
  PORT=$((PORT + 1))
  taskset -c 0 ib_send_lat -d $DEV -R -F -p $PORT -s 64 -n 1000 > $R/$name.s 2>&1 &
  local sp=$!
  for _ in $(seq 1 300); do rdma resource show cm_id | grep LISTEN | grep -q ":$PORT " && break; sleep 0.1; done
  timeout 120 taskset -c 1 ib_send_lat -d $DEV -R -F -p $PORT -s 64 -n 1000 $ADDR > $R/$name.c 2>&1
  local rc=$?
  sleep 1; kill $sp 2>/dev/null; wait $sp
  echo "$name rc $rc: $(grep -E '^ *64 ' $R/$name.c | tail -1)"
}
