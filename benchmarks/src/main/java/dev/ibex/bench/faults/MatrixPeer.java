package dev.ibex.bench.faults;

import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.SoftRoceProvider;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

/**
 * The server side of a matrix cell in a process of its own, so the cell can kill it with SIGKILL:
 * {@code MatrixPeer rc|ud|mcast UDP_PORT TIMER_SCALE PORT STREAM [GROUP]} opens a soft-roce fabric on
 * {@value SoftNet#SERVER} with the network's UDP port and timer scale, serves a {@link StreamServer} (rc) or a
 * {@link DatagramSink} (ud: SIDR on PORT; mcast: joined to GROUP), prints {@code READY} and runs until killed.
 */
public final class MatrixPeer {
    private MatrixPeer() {}

    public static void main(String[] args) throws InterruptedException {
        String kind = args[0];
        int udpPort = Integer.parseInt(args[1]);
        double scale = Double.parseDouble(args[2]);
        int port = Integer.parseInt(args[3]);
        int stream = Integer.parseInt(args[4]);
        SoftNet.Options o = SoftNet.Options.DEFAULT.withTimerScale(scale);
        Map<String, String> settings = Map.of("ibex.softroce.port", Integer.toString(udpPort),
                "ibex.softroce.devices", "srv=" + SoftNet.SERVER, "ibex.softroce.timerScale", Double.toString(scale));
        EventLoopGroup group = EventLoopGroup.open(SoftRoceProvider.NAME, ProviderConfig.of(settings),
                SoftNet.loopOptions(o).withThreadName("peer"));
        switch (kind) {
            case "rc" -> StreamServer.listen(group.next(), SoftNet.serverAddress(port), ListenOptions.DEFAULT
                    .withConnection(ConnectionOptions.DEFAULT), FaultMatrix.MAX);
            case "ud" -> DatagramSink.unicast(group.next(), SoftNet.serverAddress(port), stream, FaultMatrix.MAX);
            case "mcast" -> DatagramSink.multicast(group.next(), new InetSocketAddress(SoftNet.address(SoftNet.SERVER),
                    0), new InetSocketAddress(SoftNet.address(args[5]), port), stream, FaultMatrix.MAX);
            default -> throw new IllegalArgumentException("rc, ud or mcast, not " + kind);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Duration.ofHours(1));
    }
}
