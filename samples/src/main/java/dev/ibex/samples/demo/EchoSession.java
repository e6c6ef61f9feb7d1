package dev.ibex.samples.demo;

import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaConnection;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The demo's client side of the echo protocol, driven by the connection's single {@code receive()} subscription:
 * the first message is the server's buffer descriptor, every later one an echo. Echoes answer a ping-pong phase
 * (one message in flight, round trips recorded) and then a stream phase (many in flight, throughput). Everything
 * here runs on the connection's loop, so the fields need no synchronisation.
 */
final class EchoSession {
    private final RdmaConnection conn;
    private final Sinks.One<RemoteBuffer> descriptor = Sinks.one();
    private final Histogram roundTrips = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);

    private boolean descriptorSeen;
    private byte[] ping;
    private int measured;
    private int pingsLeft;
    private long sentAt;
    private Sinks.One<Histogram> pingDone;

    private int streamLeft;
    private Sinks.One<Long> streamDone;
    private long streamStart;

    EchoSession(RdmaConnection conn) {
        this.conn = conn;
        conn.receive().subscribe(this::onMessage, this::onError, () -> onError(
                new IllegalStateException("the server closed the connection")));
    }

    /** The server's RDMA target, from its first message. */
    Mono<RemoteBuffer> target() {
        return descriptor.asMono();
    }

    /** {@code warmup + count} round trips of {@code size} bytes; emits the histogram of the last {@code count}. */
    Mono<Histogram> pingPong(int warmup, int count, int size) {
        Sinks.One<Histogram> done = Sinks.one();
        conn.loop().execute(() -> {
            this.ping = new byte[size];
            this.measured = count;
            this.pingsLeft = warmup + count;
            this.pingDone = done;
            sendPing();
        });
        return done.asMono();
    }

    /** Sends {@code count} messages of {@code size} bytes back to back; emits the nanoseconds until all echoed. */
    Mono<Long> stream(int count, int size) {
        Sinks.One<Long> done = Sinks.one();
        byte[] payload = new byte[size];
        conn.loop().execute(() -> {
            streamLeft = count;
            streamDone = done;
            streamStart = System.nanoTime();
            // send() asks for only what fits the send queue; the echoes come back as receive credits allow
            conn.send(Flux.range(0, count).map(i -> payload)).subscribe(null, this::onError);
        });
        return done.asMono();
    }

    private void sendPing() {
        sentAt = System.nanoTime();
        conn.send(Mono.just(ping)).subscribe(null, this::onError);
    }

    private void onMessage(Message m) {
        long now = System.nanoTime();
        if (!descriptorSeen) {
            descriptorSeen = true;
            descriptor.tryEmitValue(RemoteBuffer.decode(m.payload(), 0));
        } else if (pingsLeft > 0) {
            if (pingsLeft-- <= measured) { // the first warm-up round trips are not recorded
                roundTrips.recordValue(now - sentAt);
            }
            if (pingsLeft > 0) {
                sendPing();
            } else {
                pingDone.tryEmitValue(roundTrips);
            }
        } else if (streamLeft > 0 && --streamLeft == 0) {
            streamDone.tryEmitValue(now - streamStart);
        }
        // the message is released when this returns, and its receive credit goes back to the peer
    }

    private void onError(Throwable t) {
        descriptor.tryEmitError(t);
        if (pingDone != null) {
            pingDone.tryEmitError(t);
        }
        if (streamDone != null) {
            streamDone.tryEmitError(t);
        }
    }
}
