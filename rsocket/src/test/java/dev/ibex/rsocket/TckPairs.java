package dev.ibex.rsocket;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaServer;
import io.rsocket.test.TransportTest;
import io.rsocket.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * RSocket TCK {@link TransportTest.TransportPair}s over Ibex: the server transport on {@code serverLoops} at
 * {@code serverIp} (any port), the client transport on {@code clientLoops} to wherever the server bound; each side
 * copies into the TCK's leak-tracking allocator. Used by the soft-roce TCK classes and the rdma-core VM subset.
 *
 * <p><b>Threading.</b> Stateless.
 */
public final class TckPairs {
    private TckPairs() {}

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static TransportTest.TransportPair pair(EventLoopGroup serverLoops, String serverIp,
            EventLoopGroup clientLoops, boolean fragmentation, boolean resumability) {
        return pair(serverLoops, serverIp, clientLoops, null, fragmentation, resumability);
    }

    /** As above, the client connecting from {@code clientIp} ({@code null}: the route decides). */
    @SuppressWarnings({"rawtypes", "unchecked"})
    public static TransportTest.TransportPair pair(EventLoopGroup serverLoops, String serverIp,
            EventLoopGroup clientLoops, String clientIp, boolean fragmentation, boolean resumability) {
        // the TCK's async interceptor asks for Schedulers.boundedElastic() on both loops at once; created here first,
        // the two never race to create it (the loser disposes its copy under a lock: BlockHound failed a loop on it, and
        // the half-made pair's connections then failed every later test's quiet check)
        reactor.core.scheduler.Schedulers.boundedElastic();
        Semaphore serverSetups = new Semaphore(0);
        TransportTest.TransportPair pair = new TransportTest.TransportPair<InetSocketAddress, CloseableRdmaServer>(
                () -> new InetSocketAddress(serverIp, 0),
                (address, server, allocator) -> {
                    RdmaClient client = RdmaClient.create().runOn(clientLoops).remoteAddress(server.address());
                    return RdmaClientTransport.create(clientIp == null ? client : client.localHost(clientIp))
                            .allocator(allocator);
                },
                (address, allocator) -> new SetupObserved(RdmaServerTransport.create(
                        RdmaServer.create().runOn(serverLoops).bindAddress(address)).allocator(allocator),
                        serverSetups),
                fragmentation, resumability);
        awaitServerSetup(pair, serverSetups);
        return pair;
    }

    /**
     * Waits until the server has handled the client's SETUP. The TCK's pair is ready once the client connected, but
     * with its asynchronous server interceptors the server's setup may still be running; a test that ends without
     * the server (requestChannel0 fails on the client alone) then disposes the client mid-setup, and the client's
     * ERROR frame waits in the interceptor's publishOn queue for a subscriber that never comes — a leak of the test
     * harness, reported against the server's allocator (it failed one requestChannel0 run in three in full builds).
     */
    private static void awaitServerSetup(TransportTest.TransportPair<?, ?> pair, Semaphore serverSetups) {
        try {
            if (!serverSetups.tryAcquire(30, TimeUnit.SECONDS)) {
                pair.dispose();
                throw new AssertionError("the server did not finish the client's RSocket SETUP within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The server transport, counting the SETUPs its acceptor finished handling (successfully or not). */
    private record SetupObserved(RdmaServerTransport delegate, Semaphore setups)
            implements ServerTransport<CloseableRdmaServer> {
        @Override
        public Mono<CloseableRdmaServer> start(ConnectionAcceptor acceptor) {
            return delegate.start(c -> acceptor.apply(c).doFinally(s -> setups.release()));
        }
    }
}
