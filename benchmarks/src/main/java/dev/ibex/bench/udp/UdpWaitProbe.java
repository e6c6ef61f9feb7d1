package dev.ibex.bench.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the way a thread waits for a datagram costs a 64 B ping-pong, before any of Ibex's code runs: the ping-pong
 * baseline's shape ({@link UdpPingPong}: connected sockets, a blocking {@code read}), unconnected sockets with a
 * blocking {@code receive} and {@code send} to an address (how one soft-roce port talks to many peers), and those
 * sockets non-blocking behind a {@link Selector} (how a soft-roce event loop waits: {@code epoll_wait}, then the
 * read); and the spinning counterparts of the first two, non-blocking sockets read in a busy loop (each side keeps a
 * core), against the baseline's spinning mode. The variants run in turn in one JVM, round after round, each round's
 * figures next to its baseline of the same round (this machine's speed drifts between JVMs by more than the
 * differences measured here).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ibex.bench.udp.UdpWaitProbe [round trips] [rounds]
 * </pre>
 */
public final class UdpWaitProbe {
    /** How a side sends and waits. */
    public enum Variant {
        /** Connected sockets, blocking {@code write} and {@code read}: {@link UdpPingPong}'s blocking mode. */
        CONNECTED_BLOCKING,
        /** Unconnected sockets, blocking {@code send} to an address and {@code receive}. */
        UNCONNECTED_BLOCKING,
        /** Unconnected non-blocking sockets: a read, and when it finds nothing a {@code select} and a read again. */
        SELECTOR,
        /** Connected non-blocking sockets read in a busy loop: {@link UdpPingPong}'s spinning mode. */
        CONNECTED_SPINNING,
        /** Unconnected non-blocking sockets, {@code receive} in a busy loop: how a spinning soft-roce loop reads. */
        UNCONNECTED_SPINNING;

        /** The variant this one is compared with: the baseline's shape, blocking or spinning alike. */
        Variant baseline() {
            return ordinal() < CONNECTED_SPINNING.ordinal() ? CONNECTED_BLOCKING : CONNECTED_SPINNING;
        }
    }

    /** One variant's round: the median round trip and the process's CPU per round trip, both in µs. */
    public record Figure(Variant variant, double p50Micros, double cpuMicros) { }

    private UdpWaitProbe() { }

    public static void main(String[] args) throws Exception {
        int roundTrips = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        InetAddress host = InetAddress.getLoopbackAddress();
        List<Figure> all = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (Variant v : Variant.values()) {
                measure(v, host, roundTrips / 2); // warm-up
            }
            for (Variant v : Variant.values()) {
                Figure f = measure(v, host, roundTrips);
                all.add(f);
                System.out.printf("round %d %-20s p50 %6.2f us  cpu/rt %6.2f us%n", r + 1, v, f.p50Micros(),
                        f.cpuMicros());
            }
        }
        for (Variant v : Variant.values()) {
            double[] p50 = new double[rounds], cpu = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                Figure base = all.get(r * Variant.values().length + v.baseline().ordinal());
                Figure f = all.get(r * Variant.values().length + v.ordinal());
                p50[r] = f.p50Micros() / base.p50Micros();
                cpu[r] = f.cpuMicros() / base.cpuMicros();
            }
            System.out.printf("%-20s p50 / baseline median %.2f (rounds %s), cpu / baseline median %.2f (rounds %s)%n",
                    v, median(p50), range(p50), median(cpu), range(cpu));
        }
    }

    /** Runs {@code roundTrips} round trips of 64 B datagrams between two sockets of {@code host} waiting as {@code v}. */
    public static Figure measure(Variant v, InetAddress host, int roundTrips) throws IOException, InterruptedException {
        try (DatagramChannel a = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(host, 0));
                DatagramChannel b = DatagramChannel.open(StandardProtocolFamily.INET)
                        .bind(new InetSocketAddress(host, 0))) {
            Side client = new Side(v, a, b.getLocalAddress());
            Side server = new Side(v, b, a.getLocalAddress());
            Thread echo = Thread.ofPlatform().daemon().name("udp-wait-echo").start(() -> {
                try {
                    while (true) {
                        server.receive();
                        server.send();
                    }
                } catch (ClosedChannelException | ClosedSelectorException closed) {
                    // done
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            long[] times = new long[roundTrips];
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            for (int i = 0; i < roundTrips; i++) {
                long t0 = System.nanoTime();
                client.send();
                client.receive();
                times[i] = System.nanoTime() - t0;
            }
            long cpu = os.getProcessCpuTime() - cpu0;
            server.close(); // ends the echo's wait: its selector, then its channel
            client.close();
            echo.join(2000);
            Arrays.sort(times);
            return new Figure(v, times[roundTrips / 2] / 1e3, cpu / 1e3 / roundTrips);
        }
    }

    /** One side's socket, buffers and (for {@link Variant#SELECTOR}) selector. */
    private static final class Side {
        private final Variant variant;
        private final DatagramChannel channel;
        private final SocketAddress peer;
        private final ByteBuffer out = ByteBuffer.allocateDirect(64);
        private final ByteBuffer in = ByteBuffer.allocateDirect(2048);
        private final Selector selector;

        Side(Variant variant, DatagramChannel channel, SocketAddress peer) throws IOException {
            this.variant = variant;
            this.channel = channel;
            this.peer = peer;
            if (variant == Variant.CONNECTED_BLOCKING || variant == Variant.CONNECTED_SPINNING) {
                channel.connect(peer);
            }
            if (variant == Variant.CONNECTED_SPINNING || variant == Variant.UNCONNECTED_SPINNING) {
                channel.configureBlocking(false);
            }
            if (variant == Variant.SELECTOR) {
                channel.configureBlocking(false);
                selector = Selector.open();
                channel.register(selector, SelectionKey.OP_READ);
            } else {
                selector = null;
            }
        }

        void send() throws IOException {
            out.clear();
            if (variant == Variant.CONNECTED_BLOCKING || variant == Variant.CONNECTED_SPINNING) {
                channel.write(out);
            } else {
                channel.send(out, peer);
            }
        }

        void receive() throws IOException {
            in.clear();
            switch (variant) {
                case CONNECTED_BLOCKING -> channel.read(in);
                case UNCONNECTED_BLOCKING -> channel.receive(in);
                case SELECTOR -> {
                    while (channel.receive(in) == null) {
                        selector.select(key -> { });
                    }
                }
                case CONNECTED_SPINNING -> {
                    while (channel.read(in) == 0) {
                        Thread.onSpinWait();
                    }
                }
                case UNCONNECTED_SPINNING -> {
                    while (channel.receive(in) == null) {
                        Thread.onSpinWait();
                    }
                }
            }
        }

        void close() throws IOException {
            if (selector != null) {
                selector.close();
            }
            channel.close();
        }
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String range(double[] xs) {
        return String.format("%.2f-%.2f", Arrays.stream(xs).min().orElse(0), Arrays.stream(xs).max().orElse(0));
    }
}
