package dev.ibex.bench.jmh;

import dev.ibex.softroce.wire.Icrc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the soft provider's ICRC costs per packet (it is computed once when a packet is built and once when it is
 * received), next to a bare {@link CRC32} over the same bytes of a direct buffer — the intrinsic's floor. A full
 * 4 KiB-MTU WRITE packet (4112 bytes) and a 64-byte SEND (80 bytes).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class IcrcBenchmark {
    @Param({"80", "4112"})
    public int packet;

    private Arena arena;
    private MemorySegment segment;
    private ByteBuffer buffer;
    private final Icrc icrc = new Icrc();
    private final CRC32 crc = new CRC32();

    @Setup
    public void open() {
        arena = Arena.ofConfined();
        segment = arena.allocate(packet, 8);
        for (int i = 0; i < packet; i++) {
            segment.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        buffer = segment.asByteBuffer();
    }

    @TearDown
    public void close() {
        arena.close();
    }

    /** The provider's ICRC over one UDP payload. */
    @Benchmark
    public int icrc() {
        return icrc.ipv4(0x7f000002, 0x7f000003, 4791, 4791, segment, 0, packet);
    }

    /** A plain CRC-32 over the same bytes (the floor). */
    @Benchmark
    public long crc32() {
        crc.reset();
        buffer.clear();
        crc.update(buffer);
        return crc.getValue();
    }
}
