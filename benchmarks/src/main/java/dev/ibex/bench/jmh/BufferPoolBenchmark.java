package dev.ibex.bench.jmh;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.ProtectionDomain;
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
 * The registered buffer pool on its owner thread: acquire and release 16 buffers (what a loop does per batch of
 * sends). One operation = one acquire + release; 0 B/op with {@code -prof gc}. The fake PD stands in for a device:
 * registration happens once, in setup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class BufferPoolBenchmark {
    static final int BATCH = 16;

    private FakeFabric fabric;
    private ProtectionDomain pd;
    private BufferPool pool;
    private final Buffer[] held = new Buffer[BATCH];

    @Setup
    public void open() {
        fabric = FakeFabric.loopback("10.0.0.1");
        DeviceContext device = fabric.devices().getFirst();
        pd = device.allocPd();
        pool = new BufferPool(pd, BufferPool.Options.DEFAULT.withBufferSize(4096).withLeakTracking(false), () -> { });
        for (int i = 0; i < BATCH; i++) { // register the first slab outside the measurement
            held[i] = pool.acquire();
        }
        for (Buffer b : held) {
            b.release();
        }
    }

    @TearDown
    public void close() {
        pool.close();
        pd.close();
        fabric.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Buffer acquireRelease() {
        for (int i = 0; i < BATCH; i++) {
            held[i] = pool.acquire();
        }
        for (int i = 0; i < BATCH; i++) {
            held[i].release();
        }
        return held[0];
    }
}
