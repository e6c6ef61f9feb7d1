package dev.ibex.verbs.ffi;

import dev.ibex.verbs.ffi.constant.IbvWrOpcode;
import dev.ibex.verbs.ffi.struct.IbvCq;
import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvSendWr;
import dev.ibex.verbs.ffi.struct.IbvWc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Manual measurement, not a test: the per-call cost of the data-path ops through the fake provider, with
 * and without {@code critical(false)}. Run twice and compare:
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp CLASSPATH dev.ibex.verbs.ffi.ContextOpsCost
 * java --enable-native-access=ALL-UNNAMED -Dibex.verbs.critical=false -cp CLASSPATH dev.ibex.verbs.ffi.ContextOpsCost
 * </pre>
 */
public final class ContextOpsCost {
    private ContextOpsCost() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000_000;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment context = FakeProvider.context(arena);
            ContextOps ops = ContextOps.of(context);
            MemorySegment digest = arena.allocate(ValueLayout.JAVA_LONG, 16);
            MemorySegment cq = arena.allocate(IbvCq.LAYOUT);
            cq.set(ValueLayout.ADDRESS, IbvCq.OFFSET_CQ_CONTEXT, digest);
            MemorySegment qp = arena.allocate(IbvQp.LAYOUT);
            qp.set(ValueLayout.ADDRESS, IbvQp.OFFSET_QP_CONTEXT, digest);
            MemorySegment wc = arena.allocate(IbvWc.LAYOUT, 16);
            MemorySegment wr = arena.allocate(IbvSendWr.LAYOUT);
            IbvSendWr.set(wr, 0, 1, IbvWrOpcode.IBV_WR_SEND, 0, 0, 0);
            MemorySegment bad = arena.allocate(ValueLayout.ADDRESS);
            System.out.println("critical=" + ContextOps.CRITICAL + " calls/round=" + calls);
            for (int round = 0; round < 5; round++) {
                long sink = 0;
                digest.fill((byte) 0);
                long t0 = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    sink += ops.pollCq(cq, 16, wc);
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    sink += ops.postSend(qp, wr, bad);
                }
                long t2 = System.nanoTime();
                System.out.printf("round %d: poll_cq(empty) %.1f ns/call, post_send(1 WR) %.1f ns/call (sink %d)%n",
                        round, (t1 - t0) / (double) calls, (t2 - t1) / (double) calls, sink);
            }
        }
    }
}
