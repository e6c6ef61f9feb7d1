package dev.ibex.samples.demo;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.samples.cli.SoftRoceHost;
import dev.ibex.samples.tour.TourContext;
import dev.ibex.samples.tour.TourSection;
import dev.ibex.softroce.net.FreePort;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Flux;

/**
 * The tour's first section: two soft-roce "hosts" on loopback (127.0.0.2 serves, 127.0.0.3 connects; no root, no
 * RDMA device) exercise the reactive API end to end — a connect rejected by the server's policy, a connect with
 * private data, send/recv ping-pong and a message stream, RDMA WRITE and READ, both atomics, a clean disconnect —
 * and print latency percentiles and throughput.
 */
public final class EchoSection implements TourSection {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";
    /**
     * Each side keeps more receives posted than the peer can have sends in flight (send queue 128), so a burst
     * never meets an empty receive queue: no RNR NAK, no back-off.
     */
    static final ConnectionOptions WINDOWS = ConnectionOptions.DEFAULT.withReceiveWindow(256);

    private PrintStream out;

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public String title() {
        return "a reactive echo over RC: reject, connect, ping-pong, stream, RDMA WRITE/READ, atomics";
    }

    @Override
    public void run(TourContext tour) {
        this.out = tour.out();
        Duration step = tour.step();
        int size = tour.size();
        int bufferSize = Math.max(4096, Integer.highestOneBit(Math.max(size, tour.writeSize()) - 1) << 1);
        int udpPort = FreePort.on(SERVER_IP, CLIENT_IP);
        out.printf("  soft-roce over loopback, server %s, client %s, RoCEv2 on UDP port %d%n",
                SERVER_IP, CLIENT_IP, udpPort);
        SoftRoceHost serverHost = new SoftRoceHost("srv0", SERVER_IP, udpPort, bufferSize);
        SoftRoceHost clientHost = new SoftRoceHost("cli0", CLIENT_IP, udpPort, bufferSize);
        try {
            DisposableServer server = RdmaServer.create().runOn(serverHost.loops()).host(SERVER_IP).port(0)
                    .connectionOptions(WINDOWS)
                    .accept(EchoService::admit)
                    .handle(EchoService::serve)
                    .bindNow(step);
            try {
                out.printf("  server listening on %s:%d%n", SERVER_IP, server.port());
                RdmaClient client = RdmaClient.create().runOn(clientHost.loops())
                        .remoteAddress(new InetSocketAddress(SERVER_IP, server.port()))
                        .options(WINDOWS)
                        .connectTimeout(step);
                rejected(client, step);
                converse(client, step, tour);
            } finally {
                server.disposeNow(step);
            }
        } finally {
            clientHost.close();
            serverHost.close();
        }
        check(serverHost.residue() == 0 && clientHost.residue() == 0, "resources left open: server "
                + serverHost.residue() + ", client " + clientHost.residue());
        out.println("  closed both hosts: every CM id, QP, CQ, MR and PD released");
    }

    /** A client without the token: the server's policy rejects it, and the reason comes back typed. */
    private void rejected(RdmaClient client, Duration step) {
        try {
            client.privateData("who-knows".getBytes(StandardCharsets.US_ASCII)).connectNow(step).dispose();
            throw new IllegalStateException("the server accepted a client without the token");
        } catch (RdmaConnectException e) {
            out.printf("  connect without token: %s, server said \"%s\"%n", e.reason(), ascii(e.privateData()));
        }
    }

    private void converse(RdmaClient client, Duration step, TourContext tour) {
        int pings = tour.pings();
        int size = tour.size();
        int stream = tour.stream();
        int writes = tour.writes();
        int writeSize = tour.writeSize();
        long t0 = System.nanoTime();
        RdmaConnection conn = client.privateData(EchoService.TOKEN).connectNow(step);
        long connectNanos = System.nanoTime() - t0;
        try {
            out.printf("  connected %s -> %s in %.2f ms, server said \"%s\"%n", conn.localAddress(),
                    conn.remoteAddress(), connectNanos / 1e6, ascii(conn.peerPrivateData()));
            EchoSession session = new EchoSession(conn);
            RemoteBuffer target = session.target().block(step);
            out.printf("  server exposes %d bytes at 0x%x, rkey 0x%x%n", target.length(), target.address(),
                    target.rkey());

            Histogram rtt = session.pingPong(Math.min(pings, 5000), pings, size).block(step);
            out.printf("  send/recv ping-pong, %d x %d B: round trip p50 %.1f us, p99 %.1f us, p99.9 %.1f us, "
                    + "max %.1f us%n", pings, size, us(rtt.getValueAtPercentile(50)), us(rtt.getValueAtPercentile(99)),
                    us(rtt.getValueAtPercentile(99.9)), us(rtt.getMaxValue()));

            long streamNanos = session.stream(stream, size).block(step);
            out.printf("  echoed stream, %d x %d B: %.0f messages/s each way%n", stream, size,
                    stream / (streamNanos / 1e9));

            int length = Math.min(writeSize, target.length());
            byte[] block = new byte[length];
            long w0 = System.nanoTime();
            Flux.range(0, writes)
                    .flatMap(i -> conn.write(target, 0, block), 8) // 8 WRITEs in flight
                    .then().block(step);
            long writeNanos = System.nanoTime() - w0;
            out.printf("  RDMA WRITE, %d x %d B: %.1f MiB/s%n", writes, length,
                    (double) writes * length / (1 << 20) / (writeNanos / 1e9));

            byte[] hello = "written by RDMA WRITE, read back by RDMA READ".getBytes(StandardCharsets.US_ASCII);
            conn.write(target, 64, hello).block(step);
            String back = conn.read(target, 64, hello.length).map(Message::asString).block(step);
            check(back.equals(new String(hello, StandardCharsets.US_ASCII)), "READ returned \"" + back + "\"");
            out.printf("  RDMA READ back: \"%s\"%n", back);

            conn.write(target, 0, new byte[8]).block(step);
            long before = conn.fetchAdd(target, 0, 42).block(step);
            long swapped = conn.compareSwap(target, 0, 42, 7).block(step);
            long after = conn.fetchAdd(target, 0, 0).block(step);
            check(before == 0 && swapped == 42 && after == 7, "atomics returned " + before + "/" + swapped + "/"
                    + after);
            out.printf("  atomics: fetch-add 42 on 0 -> 42, compare-swap 42 -> 7, now %d%n", after);

            long d0 = System.nanoTime();
            conn.disconnect().block(step);
            out.printf("  disconnected cleanly in %.2f ms%n", (System.nanoTime() - d0) / 1e6);
        } finally {
            conn.dispose();
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("demo check failed: " + what);
        }
    }

    private static double us(long nanos) {
        return nanos / 1000.0;
    }

    private static String ascii(byte[] data) {
        int n = data.length;
        while (n > 0 && data[n - 1] == 0) {
            n--; // RDMA CM pads private data with zeros
        }
        return new String(Arrays.copyOf(data, n), StandardCharsets.US_ASCII);
    }
}
