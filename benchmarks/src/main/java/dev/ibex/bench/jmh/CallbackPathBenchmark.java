package dev.ibex.bench.jmh;

import dev.ibex.bench.callback.PingPong;
import dev.ibex.bench.callback.Sides;
import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.cm.spi.ProviderConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The steady-state callback path, end to end: a ping-pong that runs by itself on the event loops (client SEND →
 * server {@code onMessage} → copy into a pool buffer → SEND back → client {@code onMessage} → next SEND, with both
 * send completions dispatched), one operation = one round trip. Run with {@code -prof gc}: {@code
 * gc.alloc.rate.norm} is the bytes allocated per round trip by every thread of the JVM (the loops, the provider's
 * receive and timer threads; the measuring thread only parks), which must be ~0.
 *
 * <p>{@code fake}: cm-core over its in-memory fake (one fabric, two loops) — the framework's own cost.
 * {@code soft-roce}: two soft devices on 127.0.0.2/.3 over UDP — the framework plus the software provider.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class CallbackPathBenchmark {
    static final int ROUND_TRIPS = 100;
    static final int STALL_SECONDS = 10;

    @Param({"fake", "soft-roce"})
    public String provider;

    private PingPong pingPong;
    private long seen;

    @Setup(Level.Trial)
    public void open() {
        Sides sides = switch (provider) {
            case "fake" -> Sides.oneFabric("fake", ProviderConfig.DEFAULT, new InetSocketAddress("10.0.0.1", 7471));
            case "soft-roce" -> LoopbackHosts.softRoce(7471);
            default -> throw new IllegalArgumentException(provider);
        };
        pingPong = PingPong.open(sides, 64, Duration.ofSeconds(30));
        pingPong.startFreeRunning();
        seen = 0;
    }

    @TearDown(Level.Trial)
    public void close() {
        pingPong.close();
    }

    /**
     * Waits (parked, allocating nothing) until {@value #ROUND_TRIPS} more round trips have completed; a ping-pong
     * that makes no progress for {@value #STALL_SECONDS} s (a lost completion) fails the benchmark instead of
     * hanging it.
     */
    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public long roundTrip() {
        long target = seen + ROUND_TRIPS;
        long now = pingPong.roundTrips();
        long progressAt = System.nanoTime();
        long last = now;
        while (now < target) {
            LockSupport.parkNanos(20_000);
            now = pingPong.roundTrips();
            long t = System.nanoTime();
            if (now != last) {
                last = now;
                progressAt = t;
            } else if (t - progressAt > TimeUnit.SECONDS.toNanos(STALL_SECONDS)) {
                throw new IllegalStateException("the ping-pong stalled at " + now + " round trips: no progress for "
                        + STALL_SECONDS + " s (" + pingPong.describe() + ")");
            }
        }
        seen = now;
        return now;
    }
}
