package dev.ibex.samples.kv;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.rsocket.CloseableRdmaServer;
import dev.ibex.rsocket.RdmaClientTransport;
import dev.ibex.rsocket.RdmaServerTransport;
import dev.ibex.softroce.net.FreePort;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The RSocket section of {@code ./ibex demo}: the key-value service ({@link KvService}) on one soft-roce host and an
 * RSocket client on another (loopback, no RDMA device), a few readable lines with figures — PUT/GET, a WATCH that
 * sees later PUTs, GET latency percentiles and rate, and a 1 MiB value that the transport splits into messages.
 *
 * <p><b>Threading.</b> {@link #run} blocks the caller (never call it on an event loop).
 */
public final class KvTour {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";

    private KvTour() {}

    /**
     * Runs the section: prints its lines to {@code out} (indented), each step bounded by {@code step}, with
     * {@code requests} measured GETs; throws when something did not happen as printed.
     */
    public static void run(PrintStream out, Duration step, int requests) {
        int udp = FreePort.on(SERVER_IP, CLIENT_IP);
        EventLoopGroup serverHost = open("kv-srv", SERVER_IP, udp);
        EventLoopGroup clientHost = open("kv-cli", CLIENT_IP, udp);
        try {
            CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(new KvService()))
                    .bind(RdmaServerTransport.create(RdmaServer.create().runOn(serverHost).host(SERVER_IP).port(0)))
                    .block(step);
            try {
                long t0 = System.nanoTime();
                RSocket kv = RSocketConnector.create().connect(RdmaClientTransport.create(
                        RdmaClient.create().runOn(clientHost).remoteAddress(server.address()))).block(step);
                say(out, "RSocket key-value service on %s:%d, client on %s (soft-roce): connected in %.1f ms",
                        SERVER_IP, server.address().getPort(), CLIENT_IP, (System.nanoTime() - t0) / 1e6);
                try {
                    conversation(out, kv, step, requests);
                } finally {
                    kv.dispose();
                    kv.onClose().onErrorResume(e -> Mono.empty()).block(step);
                }
            } finally {
                server.dispose();
                server.onClose().block(step);
            }
        } finally {
            clientHost.close();
            serverHost.close();
        }
    }

    private static void conversation(PrintStream out, RSocket kv, Duration step, int requests) {
        text(kv.requestResponse(KvProtocol.put("color", "blue")).block(step));
        String got = text(kv.requestResponse(KvProtocol.get("color")).block(step));
        check("blue".equals(got), "GET color answered " + got);
        say(out, "PUT color=blue, GET color -> %s", got);

        // WATCH is a request-stream: the current value, then each later PUT
        Sinks.One<String> current = Sinks.one();
        Mono<List<String>> watched = kv.requestStream(KvProtocol.watch("color")).take(3).map(KvTour::text)
                .doOnNext(current::tryEmitValue).collectList().cache();
        watched.subscribe(null, e -> { });
        current.asMono().block(step); // the stream is in place
        for (String color : List.of("red", "green")) {
            text(kv.requestResponse(KvProtocol.put("color", color)).block(step));
        }
        List<String> seen = watched.block(step);
        check(List.of("blue", "red", "green").equals(seen), "WATCH saw " + seen);
        say(out, "WATCH color saw %s: the current value, then each PUT", seen);

        Histogram h = new Histogram(3);
        long t0 = System.nanoTime();
        for (int i = 0; i < requests; i++) {
            long s = System.nanoTime();
            text(kv.requestResponse(KvProtocol.get("color")).block(step));
            h.recordValue(System.nanoTime() - s);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        say(out, "%d GETs one at a time: round trip p50 %.1f us, p99 %.1f us; %.0f requests/s", requests,
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, requests / seconds);

        String big = "x".repeat(1 << 20);
        long b0 = System.nanoTime();
        text(kv.requestResponse(KvProtocol.put("big", big)).block(step));
        String back = text(kv.requestResponse(KvProtocol.get("big")).block(step));
        check(big.equals(back), "the 1 MiB value came back different");
        say(out, "a 1 MiB value PUT and read back in %.1f ms: each frame split into %d messages of 8 KiB and joined",
                (System.nanoTime() - b0) / 1e6, (big.length() + 16 + 8191) / 8192);
    }

    private static EventLoopGroup open(String device, String ip, int udp) {
        return EventLoopGroup.open("soft-roce", ProviderConfig.of(Map.of("ibex.softroce.devices", device + "=" + ip,
                "ibex.softroce.port", Integer.toString(udp))), LoopOptions.DEFAULT.withLoops(1)
                .withThreadName(device + "-loop").withCloseTimeout(Duration.ofSeconds(3))
                .withBuffers(BufferPool.Options.DEFAULT.withSlabs(64, 4096)));
    }

    private static String text(Payload p) {
        try {
            return p.getDataUtf8();
        } finally {
            p.release();
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("rsocket section: " + what);
        }
    }

    private static void say(PrintStream out, String format, Object... args) {
        out.println("  " + String.format(Locale.ROOT, format, args));
    }
}
