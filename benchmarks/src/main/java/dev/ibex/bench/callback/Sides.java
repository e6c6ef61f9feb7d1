package dev.ibex.bench.callback;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Where a workload runs: a provider, the server's listening address, and either two fabrics (two "hosts": a server
 * group and a client group, one event loop each, as {@code ib_send_lat}'s two processes have one thread each; the
 * soft provider needs this to put the sides on different devices) or one fabric with two loops (the fake, whose
 * fabric is the whole network).
 *
 * @param provider the provider's name ("soft-roce", "rdma-core", "fake")
 * @param serverConfig the server side's provider settings (e.g. its soft device on 127.0.0.3)
 * @param clientConfig the client side's settings, or {@code null} for one fabric serving both sides
 * @param serverAddress where the server listens and the client connects
 * @param cqPollSpin how long each side's loop busy-polls its CQs before blocking (zero: it never does)
 * @param lookInterval the rounds of CQ polls between a spinning loop's looks at its poller and clock
 *     ({@code LoopOptions.cqPollSpinLookInterval})
 */
public record Sides(String provider, ProviderConfig serverConfig, ProviderConfig clientConfig,
        InetSocketAddress serverAddress, Duration cqPollSpin, int lookInterval) {

    /** Sides whose loops never spin on their CQs. */
    public Sides(String provider, ProviderConfig serverConfig, ProviderConfig clientConfig,
            InetSocketAddress serverAddress) {
        this(provider, serverConfig, clientConfig, serverAddress, Duration.ZERO,
                LoopOptions.DEFAULT.cqPollSpinLookInterval());
    }

    /** This with loops that busy-poll their CQs for {@code spin} before blocking ({@code LoopOptions.cqPollSpin}). */
    public Sides withCqPollSpin(Duration spin) {
        return new Sides(provider, serverConfig, clientConfig, serverAddress, spin, lookInterval);
    }

    /**
     * This with spinning loops that look at their poller and clock every {@code rounds} rounds of CQ polls
     * ({@code LoopOptions.cqPollSpinLookInterval}).
     */
    public Sides withLookInterval(int rounds) {
        return new Sides(provider, serverConfig, clientConfig, serverAddress, cqPollSpin, rounds);
    }

    /** Two fabrics of {@code provider}, one per side. */
    public static Sides twoFabrics(String provider, ProviderConfig server, ProviderConfig client,
            InetSocketAddress serverAddress) {
        return new Sides(provider, server, client, serverAddress);
    }

    /** One fabric of {@code provider} with a loop per side. */
    public static Sides oneFabric(String provider, ProviderConfig config, InetSocketAddress serverAddress) {
        return new Sides(provider, config, null, serverAddress);
    }

    /** This with the server on another port (each workload listens on its own). */
    public Sides onPort(int port) {
        return new Sides(provider, serverConfig, clientConfig, new InetSocketAddress(serverAddress.getAddress(), port),
                cqPollSpin, lookInterval);
    }

    /** Opens the groups, their pools holding buffers of {@code bufferSize} bytes (the caller closes them). */
    public Loops open(int bufferSize) {
        return open(bufferSize, 1);
    }

    /**
     * Opens the groups with {@code loopsPerSide} loops each on two fabrics (one fabric: two loops in all, whatever
     * {@code loopsPerSide}), their pools holding buffers of {@code bufferSize} bytes (the caller closes them); the
     * returned {@link Loops} names each group's first loop.
     */
    public Loops open(int bufferSize, int loopsPerSide) {
        if (clientConfig == null) {
            EventLoopGroup g = EventLoopGroup.open(provider, serverConfig, options("bench", 2, bufferSize));
            return new Loops(g, g, g.loops().get(0), g.loops().get(1));
        }
        EventLoopGroup server = EventLoopGroup.open(provider, serverConfig,
                options("bench-server", loopsPerSide, bufferSize));
        try {
            EventLoopGroup client = EventLoopGroup.open(provider, clientConfig,
                    options("bench-client", loopsPerSide, bufferSize));
            return new Loops(server, client, server.loops().get(0), client.loops().get(0));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * Opens one loop for a process that runs one side only (the other runs in another process): a group of the
     * server's settings, or of the client's ({@code server} false, where {@code clientConfig} is set); the caller
     * closes it. The returned {@link Loops} names that loop as both sides'.
     */
    public Loops openOneSide(int bufferSize, boolean server) {
        ProviderConfig config = server || clientConfig == null ? serverConfig : clientConfig;
        EventLoopGroup g = EventLoopGroup.open(provider, config,
                options(server ? "bench-server" : "bench-client", 1, bufferSize));
        return new Loops(g, g, g.loops().get(0), g.loops().get(0));
    }

    private LoopOptions options(String name, int loops, int bufferSize) {
        // slabs of 1 MiB, up to 64 MiB per pool: room for a full send queue and receive window of any workload
        int perSlab = Math.max(1, (1 << 20) / bufferSize);
        return LoopOptions.DEFAULT.withLoops(loops).withThreadName(name).withCloseTimeout(Duration.ofSeconds(3))
                .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(bufferSize).withSlabs(perSlab,
                        Math.max(perSlab, (64 << 20) / bufferSize)))
                .withCqPollSpin(cqPollSpin).withCqPollSpinLookInterval(lookInterval);
    }

    /**
     * The server's and the client's group (the same one on one fabric) and the loop each side runs on.
     *
     * @param serverGroup the server side's group
     * @param clientGroup the client side's group
     * @param server the loop the server side runs on
     * @param client the loop the client side runs on
     */
    public record Loops(EventLoopGroup serverGroup, EventLoopGroup clientGroup, EventLoop server, EventLoop client)
            implements AutoCloseable {
        /** Closes the client's group first, then the server's. */
        @Override
        public void close() {
            try {
                clientGroup.close();
            } finally {
                if (serverGroup != clientGroup) {
                    serverGroup.close();
                }
            }
        }
    }
}
