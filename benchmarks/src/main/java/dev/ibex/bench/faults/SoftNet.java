package dev.ibex.bench.faults;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ResourceCounts;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.SoftRoceProvider;
import dev.ibex.softroce.net.FreePort;
import dev.ibex.softroce.transport.SoftDevice;
import dev.ibex.softroce.wire.Ipv4;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A small soft-roce network on loopback in one JVM: a server host (its own fabric, one device on {@value #SERVER})
 * and a client host (its own fabric, one device on {@value #CLIENT}), on a UDP port free on both, each with an event
 * loop group whose uncaught handler records what the loops caught. Timers are scaled by {@code timerScale}
 * ({@code ibex.softroce.timerScale}); the CM uses the fast timings, so a dead peer or an unanswered request is noticed
 * within seconds.
 *
 * <p>Threading: built and closed by one thread; the accessors are safe from any thread.
 */
public final class SoftNet implements AutoCloseable {
    public static final String SERVER = "127.0.0.2";
    public static final String CLIENT = "127.0.0.3";
    /** A loopback address no fabric of this network uses: a stranger on the same wire. */
    public static final String STRANGER = "127.0.0.9";

    /**
     * How to build the network.
     *
     * @param timerScale factor on the transport's and CM's timers
     * @param bufferSize bytes per registered buffer (the largest message)
     * @param loops event loops per host
     * @param extra more provider settings for both fabrics (e.g. {@code ibex.softroce.fault.seed})
     * @param serverHere whether the server host lives in this JVM (else another process opens it on {@link #udpPort})
     */
    public record Options(double timerScale, int bufferSize, int loops, Map<String, String> extra,
            boolean serverHere) {
        public static final Options DEFAULT = new Options(1.0, 8192, 1, Map.of(), true);

        public Options withTimerScale(double scale) {
            return new Options(scale, bufferSize, loops, extra, serverHere);
        }

        public Options withBufferSize(int size) {
            return new Options(timerScale, size, loops, extra, serverHere);
        }

        public Options withExtra(Map<String, String> settings) {
            return new Options(timerScale, bufferSize, loops, Map.copyOf(settings), serverHere);
        }

        /** The server host in another process: only the client's fabric and loops open here. */
        public Options withServerElsewhere() {
            return new Options(timerScale, bufferSize, loops, extra, false);
        }
    }

    private final Options options;
    private final int udpPort;
    private final SoftFabric serverFabric;
    private final SoftFabric clientFabric;
    private final EventLoopGroup server;
    private final EventLoopGroup client;
    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private boolean closed;

    private SoftNet(Options o) {
        this.options = o;
        udpPort = FreePort.on(SERVER, CLIENT);
        serverFabric = o.serverHere() ? open("srv=" + SERVER, o) : null;
        SoftFabric c = null;
        EventLoopGroup s = null;
        try {
            c = open("cli=" + CLIENT, o);
            LoopOptions lo = loopOptions(o).withUncaughtHandler(uncaught::add);
            s = serverFabric == null ? null : EventLoopGroup.of(serverFabric, lo.withThreadName("net-srv"));
            client = EventLoopGroup.of(c, lo.withThreadName("net-cli"));
        } catch (RuntimeException e) {
            if (s != null) {
                s.close();
            }
            if (c != null) {
                c.close();
            }
            if (serverFabric != null) {
                serverFabric.close();
            }
            throw e;
        }
        clientFabric = c;
        server = s;
    }

    /** The loops' settings: buffers of {@code o.bufferSize()}, local access only (peers get exposures). */
    public static LoopOptions loopOptions(Options o) {
        return LoopOptions.DEFAULT.withLoops(o.loops()).withCloseTimeout(Duration.ofSeconds(3))
                .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(o.bufferSize())
                        .withSlabs(Math.max(1, (1 << 20) / o.bufferSize()), Math.max(64, (64 << 20) / o.bufferSize())));
    }

    public Options options() {
        return options;
    }

    /** Opens the network. */
    public static SoftNet open(Options options) {
        return new SoftNet(options);
    }

    private SoftFabric open(String devices, Options o) {
        return (SoftFabric) new SoftRoceProvider().open(ProviderConfig.of(settings(devices, o)));
    }

    /** The provider settings of a fabric of this network with {@code devices} (also for a peer process). */
    public Map<String, String> settings(String devices, Options o) {
        Map<String, String> p = new HashMap<>(o.extra());
        p.put("ibex.softroce.port", Integer.toString(udpPort));
        p.put("ibex.softroce.devices", devices);
        p.put("ibex.softroce.timerScale", Double.toString(o.timerScale()));
        return p;
    }

    public int udpPort() {
        return udpPort;
    }

    public SoftFabric serverFabric() {
        return serverFabric;
    }

    public SoftFabric clientFabric() {
        return clientFabric;
    }

    public EventLoopGroup server() {
        return server;
    }

    public EventLoopGroup client() {
        return client;
    }

    public SoftDevice serverDevice() {
        return serverFabric.softDevices().get(0);
    }

    public SoftDevice clientDevice() {
        return clientFabric.softDevices().get(0);
    }

    /** What the loops' uncaught handlers received so far. */
    public List<Throwable> uncaught() {
        return List.copyOf(uncaught);
    }

    /** {@code port} on the server's address. */
    public static InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(address(SERVER), port);
    }

    public static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An address as soft-roce's int. */
    public static int ip(String ip) {
        return Ipv4.toInt(address(ip));
    }

    /** Live resources of both fabrics. */
    public String resources() {
        ResourceCounts c = clientFabric.resources();
        return (serverFabric == null ? "" : "server " + serverFabric.resources() + ", ") + "client " + c;
    }

    /** Closes the client's loops and fabric, then the server's. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            client.close();
        } finally {
            try {
                if (server != null) {
                    server.close();
                }
            } finally {
                clientFabric.close();
                if (serverFabric != null) {
                    serverFabric.close();
                }
            }
        }
    }
}
