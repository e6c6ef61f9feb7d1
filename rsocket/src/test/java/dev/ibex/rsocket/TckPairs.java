package dev.ibex.rsocket;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaServer;
import io.rsocket.test.TransportTest;
import java.net.InetSocketAddress;

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
        return new TransportTest.TransportPair<InetSocketAddress, CloseableRdmaServer>(
                () -> new InetSocketAddress(serverIp, 0),
                (address, server, allocator) -> {
                    RdmaClient client = RdmaClient.create().runOn(clientLoops).remoteAddress(server.address());
                    return RdmaClientTransport.create(clientIp == null ? client : client.localHost(clientIp))
                            .allocator(allocator);
                },
                (address, allocator) -> RdmaServerTransport.create(
                        RdmaServer.create().runOn(serverLoops).bindAddress(address)).allocator(allocator),
                fragmentation, resumability);
    }
}
