package dev.ibex.bench.jmh;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The data path's flyweights over native memory in verbs layout: writing and chaining a batch of 16 send WRs
 * (one SGE each), the same for receive WRs, and reading 16 completions the way the event loop dispatches them.
 * One operation = one work request or completion. With {@code -prof gc} every figure must be 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FlyweightBenchmark {
    static final int BATCH = 16;

    private Arena arena;
    private SendBatch sends;
    private RecvBatch recvs;
    private CompletionBatch wcs;
    private long buffer;
    private long wrId;

    @Setup
    public void open() {
        arena = Arena.ofConfined();
        sends = SendBatch.allocate(arena, BATCH, 1);
        recvs = RecvBatch.allocate(arena, BATCH, 1);
        wcs = CompletionBatch.allocate(arena, BATCH);
        MemorySegment wc = wcs.segment();
        for (int i = 0; i < BATCH; i++) { // completions as a CQ would leave them: wr_id, byte_len, qp_num
            wc.set(java.lang.foreign.ValueLayout.JAVA_LONG, (long) i * dev.ibex.cm.spi.VerbsAbi.WC_SIZE, i);
        }
        buffer = arena.allocate(4096).address();
    }

    @TearDown
    public void close() {
        arena.close();
    }

    /** Fill 16 SEND WRs (id, opcode, flags, one SGE) and chain them for one post. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long sendBatch() {
        for (int i = 0; i < BATCH; i++) {
            sends.wrId(i, wrId++).opcode(i, WrOpcode.SEND).flags(i, i == BATCH - 1 ? SendFlags.SIGNALED : 0)
                    .single(i, buffer + 64L * i, 64, 0x1234);
        }
        return sends.link(BATCH);
    }

    /** Fill 16 receive WRs and chain them. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long recvBatch() {
        for (int i = 0; i < BATCH; i++) {
            recvs.wrId(i, wrId++).single(i, buffer + 256L * i, 256, 0x1234);
        }
        return recvs.link(BATCH);
    }

    /** Read 16 completions: what the loop's dispatch reads per completion. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long readCompletions() {
        long acc = 0;
        for (int i = 0; i < BATCH; i++) {
            acc += wcs.wrId(i) + wcs.statusCode(i) + wcs.byteLen(i) + wcs.qpNum(i) + wcs.flags(i) + wcs.immData(i);
        }
        return acc;
    }
}
