package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.spi.ResourceKind;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Exposures under load (issue 14): 10,000 cycles of expose → the peer WRITEs through the key → the exposure ends,
 * a third each by dispose, by releasing the buffer and by the peer's SEND_WITH_INV, each cycle checked (the WRITE
 * landed, the exposure ended the way it should) — and afterwards nothing is left: no live exposure, no buffer, at most
 * the few free windows the loop keeps, as many memory regions as before.
 */
class ExposureLifecycleTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final int CYCLES = Integer.getInteger("ibex.test.exposureCycles", 10_000);

    final SoftHosts hosts = SoftHosts.patient(); // 10,000 cycles on a loaded machine: tolerate stalls
    final List<Throwable> problems = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        hosts.close();
    }

    /** The server's side of one connection: one exposure at a time, ended the way the cycle number says. */
    final class Exposer {
        private final RdmaConnection c;
        private Buffer buffer;
        private RdmaExposure exposure;
        final AtomicInteger ended = new AtomicInteger();

        Exposer(RdmaConnection c) {
            this.c = c;
        }

        Mono<Object> on(Message m) {
            long n = m.payload().get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 1);
            return switch (m.payload().get(ValueLayout.JAVA_BYTE, 0)) {
                case 'E' -> c.allocate().flatMap(b -> {
                    buffer = b;
                    b.segment().fill((byte) 0);
                    return c.expose(b, RemoteAccess.WRITE).map(x -> {
                        exposure = x;
                        return (Object) x.remote().toBytes();
                    });
                });
                case 'D' -> {
                    Buffer b = buffer;
                    RdmaExposure x = exposure;
                    if (b.segment().get(ValueLayout.JAVA_LONG, 0) != n) {
                        problems.add(new AssertionError("cycle " + n + ": the WRITE did not land"));
                    }
                    Exposure.End expected = switch ((int) (n % 3)) {
                        case 0 -> {
                            x.dispose();
                            yield Exposure.End.REVOKED;
                        }
                        case 1 -> Exposure.End.RELEASED;
                        default -> {
                            if (!m.hasInvalidatedRkey() || m.invalidatedRkey() != x.remote().rkey()) {
                                problems.add(new AssertionError("cycle " + n + ": no SEND_WITH_INV of the key"));
                            }
                            yield Exposure.End.INVALIDATED;
                        }
                    };
                    if (n % 3 == 1) {
                        b.release(); // ends the exposure; the buffer is free only once LOCAL_INV completed
                    }
                    yield x.onDispose().then(Mono.fromCallable(() -> {
                        if (x.end() != expected) {
                            problems.add(new AssertionError("cycle " + n + ": ended " + x.end() + ", not " + expected));
                        }
                        if (n % 3 != 1) {
                            b.release();
                        }
                        ended.incrementAndGet();
                        return (Object) "ok";
                    }));
                }
                default -> Mono.error(new IllegalStateException("unexpected request"));
            };
        }
    }

    private static void dumpThreads() {
        Thread.getAllStackTraces().forEach((t, trace) -> {
            System.out.println("thread " + t.getName() + " " + t.getState());
            for (StackTraceElement e : trace) {
                System.out.println("    at " + e);
            }
        });
    }

    private byte[] take(BlockingQueue<byte[]> q, long n) {
        try {
            byte[] b = q.poll(10, TimeUnit.SECONDS);
            if (b == null) {
                dumpThreads();
            }
            assertThat(b).as("a reply in cycle %d: %s, uncaught: %s", n, problems, hosts.uncaught).isNotNull();
            return b;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static ByteBuffer request(char kind, long n) {
        ByteBuffer b = ByteBuffer.allocate(9).put((byte) kind).putLong(n);
        return b.flip();
    }

    @Test
    void tenThousandExposuresComeAndGoAndLeaveNothingBehind() {
        List<Exposer> exposers = new CopyOnWriteArrayList<>();
        DisposableServer server = hosts.rdmaServer().handle(c -> {
            Exposer e = new Exposer(c);
            exposers.add(e);
            c.events().filter(ev -> ev.type() == ConnectionEvent.Type.ERROR)
                    .subscribe(ev -> problems.add(new AssertionError("server connection: " + ev, ev.cause())));
            return c.send(c.receive().concatMap(e::on));
        }).bindNow();
        RdmaConnection client = hosts.rdmaClient(server).connectNow();
        int regionsBefore = -1;
        BlockingQueue<byte[]> replies = new LinkedTransferQueue<>(); // lock-free add on the loop
        client.receive().map(Message::toByteArray).subscribe(replies::add, problems::add);
        long t0 = System.nanoTime();
        long cycles = 0;
        ByteBuffer value = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
        for (long n = 0; n < CYCLES; n++) { // E → descriptor; WRITE n; D (with invalidate every third) → ok
            try {
                client.send(Mono.just(request('E', n))).block(WAIT);
                RemoteBuffer remote = RemoteBuffer.decode(take(replies, n), 0);
                client.write(remote, 0, value.putLong(0, n)).block(WAIT);
                client.send(Mono.just(n % 3 == 2 ? new WithInvalidate(request('D', n), remote.rkey())
                        : request('D', n))).block(WAIT);
            } catch (RuntimeException e) {
                dumpThreads();
                throw new AssertionError("cycle " + n + ", server side: " + problems + ", uncaught: " + hosts.uncaught,
                        e);
            }
            assertThat(new String(take(replies, n), java.nio.charset.StandardCharsets.UTF_8)).as("cycle %d: %s", n,
                    problems).isEqualTo("ok");
            cycles++;
            if (n == 99) { // warmed up: the pool has grown to what the cycles need
                regionsBefore = hosts.serverFabric.resources().get(ResourceKind.MEMORY_REGION);
            }
        }
        long nanos = System.nanoTime() - t0;
        System.out.printf("%d expose/WRITE/revoke cycles in %.1f s: %.0f per second%n", cycles, nanos / 1e9,
                cycles / (nanos / 1e9));
        assertThat(cycles).isEqualTo(CYCLES);
        assertThat(problems).isEmpty();
        assertThat(exposers).singleElement().satisfies(e -> assertThat(e.ended).hasValue(CYCLES));
        assertThat(hosts.serverFabric.resources().get(ResourceKind.MEMORY_REGION)).as("regions (pool slabs)")
                .isEqualTo(regionsBefore);
        assertThat(hosts.serverFabric.resources().get(ResourceKind.MEMORY_WINDOW)).as("windows (the free ones kept)")
                .isLessThanOrEqualTo(2);
        long c0 = System.nanoTime();
        client.disconnect().block(WAIT);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
        System.out.printf("teardown %.1f s%n", (System.nanoTime() - c0) / 1e9);
        assertThat(hosts.serverFabric.resources().get(ResourceKind.MEMORY_WINDOW)).isLessThanOrEqualTo(2);
    }
}
