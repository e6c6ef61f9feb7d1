package dev.ibex.bench.scale;

import dev.ibex.bench.callback.Throughput;
import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.Curve;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Target;
import dev.ibex.bench.report.Watchdog;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.net.FreePort;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Messages of 64 KiB, 1 MiB and 16 MiB: SEND throughput through the public reactive API ({@code RdmaConnection.send}
 * of one payload of that size; default options but {@code maxMessageSize} 16 MiB at both ends, 8 KiB pool buffers)
 * against RDMA WRITE of the same size (callback API, into a buffer the server announced), two soft-roce devices on
 * loopback in this process. Each size is sent twice: eagerly ({@code rendezvousThreshold} 0: one SEND per buffer,
 * reassembled by the receiver) and by rendezvous (threshold 64 KiB, so every size takes it: the receiver READs the
 * sender's buffers through READ-only windows), so the table shows the rendezvous against WRITE and against the eager
 * path of the same run (with default options, 1 MiB and up go by rendezvous); where the API refuses the size, the row says so with the refusal, and still shows the WRITE
 * figure. Alone: {@code ./ibex bench --only large}.
 */
final class LargeMessages {
    static final int[] SIZES = {64 << 10, 1 << 20, 16 << 20};
    /** Bytes moved per measurement. */
    static final long VOLUME = 128L << 20;
    static final Duration LIMIT = Duration.ofSeconds(120);
    static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULT.withMaxMessageSize(16 << 20);
    static final ConnectionOptions EAGER = OPTIONS.withRendezvousThreshold(0);
    static final ConnectionOptions RENDEZVOUS = OPTIONS.withRendezvousThreshold(64 << 10);

    private LargeMessages() {}

    static void run(RatioTable table, PrintStream out, Watchdog watchdog) {
        watchdog.phase("large messages: warm-up");
        send(64 << 10, EAGER, 16L << 20); // both paths compiled before the first row, so neither pays the JIT there
        send(64 << 10, RENDEZVOUS, 16L << 20);
        Map<String, List<Curve.Point>> series = new LinkedHashMap<>();
        series.put("RDMA WRITE (callback API, baseline)", new ArrayList<>());
        series.put("SEND, eager (RdmaConnection.send, one SEND per buffer)", new ArrayList<>());
        series.put("SEND, rendezvous (the receiver READs)", new ArrayList<>());
        for (int size : SIZES) {
            watchdog.phase("large messages: " + label(size));
            double write;
            try {
                write = writeMegabytesPerSecond(size);
            } catch (RuntimeException e) {
                out.println("   " + label(size) + " WRITE failed: " + e.getMessage());
                write = Double.NaN;
            }
            Result eager = send(size, EAGER, VOLUME);
            Result send = send(size, RENDEZVOUS, VOLUME);
            out.printf(Locale.ROOT, "   %s: WRITE %.1f MB/s, SEND eager %s, SEND rendezvous %s%n", label(size), write,
                    figure(eager), figure(send));
            table.add(new Comparison(label(size) + " messages: rendezvous SEND vs RDMA WRITE (MB/s)", write,
                    send.megabytesPerSecond, Target.none(), send.error == null ? "reactive send (rendezvous) vs "
                    + "callback WRITE" : "SEND refused: " + send.error));
            table.add(new Comparison(label(size) + " messages: rendezvous vs eager SEND (MB/s)",
                    eager.megabytesPerSecond, send.megabytesPerSecond, Target.none(), "same run, same API; eager = "
                    + "rendezvousThreshold 0" + (eager.error == null ? "" : "; eager failed: " + eager.error)));
            double kib = size / 1024.0;
            series.get("RDMA WRITE (callback API, baseline)").add(new Curve.Point(kib, write));
            series.get("SEND, eager (RdmaConnection.send, one SEND per buffer)")
                    .add(new Curve.Point(kib, eager.megabytesPerSecond));
            series.get("SEND, rendezvous (the receiver READs)").add(new Curve.Point(kib, send.megabytesPerSecond));
        }
        table.curve(new Curve("large-messages", "Large messages on soft-roce loopback: bandwidth by message size",
                "message size (KiB)", "MB/s", true, false, series));
    }

    private static String figure(Result r) {
        return r.error == null ? String.format(Locale.ROOT, "%.1f MB/s", r.megabytesPerSecond)
                : "refused (" + r.error + ")";
    }

    static String label(int size) {
        return size >= 1 << 20 ? (size >> 20) + " MiB" : (size >> 10) + " KiB";
    }

    static double writeMegabytesPerSecond(int size) {
        int depth = size <= 64 << 10 ? 32 : size <= 1 << 20 ? 16 : 2;
        int messages = (int) Math.max(8, VOLUME / size);
        try (Throughput w = Throughput.open(LoopbackHosts.softRoce(7473), Throughput.Kind.WRITE, size, depth, 2,
                LIMIT)) {
            w.run(Math.max(2, messages / 8), LIMIT); // warm-up
            long nanos = w.run(messages, LIMIT);
            return (double) messages * size / (1 << 20) / (nanos / 1e9);
        }
    }

    private record Result(double megabytesPerSecond, String error) {}

    /** SENDs of {@code size} bytes through cm-reactive; the refusal when the API has none. */
    static Result send(int size, ConnectionOptions options, long volume) {
        int udp = FreePort.on(LoopbackHosts.SERVER, LoopbackHosts.CLIENT);
        EventLoopGroup serverLoops = EventLoopGroup.open("soft-roce", config("srv=" + LoopbackHosts.SERVER, udp),
                LoopOptions.DEFAULT.withLoops(1).withThreadName("large-srv"));
        EventLoopGroup clientLoops = EventLoopGroup.open("soft-roce", config("cli=" + LoopbackHosts.CLIENT, udp),
                LoopOptions.DEFAULT.withLoops(1).withThreadName("large-cli"));
        AtomicLong received = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        DisposableServer server = null;
        RdmaConnection conn = null;
        try {
            server = RdmaServer.create().runOn(serverLoops).host(LoopbackHosts.SERVER).port(0)
                    .options(ListenOptions.DEFAULT.withConnection(options))
                    .handle(c -> c.receive().doOnNext(m -> {
                        bytes.addAndGet(m.length());
                        received.incrementAndGet();
                    }).then()).bindNow(LIMIT);
            conn = RdmaClient.create().runOn(clientLoops).localHost(LoopbackHosts.CLIENT).options(options)
                    .remoteAddress(new InetSocketAddress(LoopbackHosts.SERVER, server.port())).connectNow(LIMIT);
            byte[] payload = new byte[size];
            try {
                conn.send(Mono.just(payload)).block(LIMIT);
            } catch (RuntimeException refused) {
                return new Result(Double.NaN, refused.getClass().getSimpleName() + ": " + firstSentence(refused));
            }
            awaitReceived(received, 1);
            if (bytes.get() != size) {
                return new Result(Double.NaN, "a " + size + "-byte SEND arrived as " + bytes.get() + " bytes");
            }
            int messages = (int) Math.max(8, volume / size);
            long t0 = System.nanoTime();
            conn.send(Flux.range(0, messages).map(i -> payload)).block(LIMIT);
            awaitReceived(received, 1 + messages);
            long nanos = System.nanoTime() - t0;
            return new Result((double) messages * size / (1 << 20) / (nanos / 1e9), null);
        } catch (RuntimeException e) {
            return new Result(Double.NaN, e.getClass().getSimpleName() + ": " + firstSentence(e));
        } finally {
            if (conn != null) {
                conn.dispose();
            }
            if (server != null) {
                server.disposeNow(LIMIT);
            }
            clientLoops.close();
            serverLoops.close();
        }
    }

    private static void awaitReceived(AtomicLong received, long n) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (received.get() < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(received.get() + " of " + n + " messages arrived within " + LIMIT);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    private static String firstSentence(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int cut = m.indexOf(';');
        return (cut > 0 ? m.substring(0, cut) : m).lines().findFirst().orElse("");
    }

    private static ProviderConfig config(String devices, int port) {
        return ProviderConfig.of(Map.of("ibex.softroce.devices", devices, "ibex.softroce.port",
                Integer.toString(port)));
    }
}
