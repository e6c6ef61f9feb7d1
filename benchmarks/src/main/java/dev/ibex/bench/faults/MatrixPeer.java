package dev.ibex.bench.faults;

import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.SoftRoceProvider;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import dev.ibex.bench.report.Cli;
import picocli.CommandLine;

/**
 * The server side of a matrix cell in a process of its own, so the cell can kill it with SIGKILL:
 * {@code MatrixPeer rc|ud|mcast UDP_PORT TIMER_SCALE PORT STREAM [GROUP]} opens a soft-roce fabric on
 * {@value SoftNet#SERVER} with the network's UDP port and timer scale, serves a {@link StreamServer} (rc) or a
 * {@link DatagramSink} (ud: SIDR on PORT; mcast: joined to GROUP), prints {@code READY} and runs until killed.
 */
public final class MatrixPeer {
    private MatrixPeer() {}

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line {@link PeerJvm} gives. */
    @CommandLine.Command(name = "MatrixPeer", mixinStandardHelpOptions = true,
            description = "A fault-matrix peer in a JVM of its own: serves until killed (started by PeerJvm).")
    public static final class Command implements Callable<Integer> {
        @CommandLine.Parameters(index = "0", description = "rc, ud or mcast")
        Kind kind;

        @CommandLine.Parameters(index = "1", description = "soft-roce's UDP port")
        int udpPort;

        @CommandLine.Parameters(index = "2", description = "the timer scale")
        double scale;

        @CommandLine.Parameters(index = "3", description = "the service port")
        int port;

        @CommandLine.Parameters(index = "4", description = "the stream number")
        int stream;

        @CommandLine.Parameters(index = "5", arity = "0..1", description = "mcast: the group address")
        String group;

        @Override
        public Integer call() throws InterruptedException {
            if (kind == Kind.MCAST && group == null) {
                throw new IllegalArgumentException("mcast needs a group address");
            }
            serve(kind, udpPort, scale, port, stream, group);
            return Cli.OK;
        }
    }

    /** What the peer serves. */
    enum Kind { RC, UD, MCAST }

    static void serve(Kind kind, int udpPort, double scale, int port, int stream, String group)
            throws InterruptedException {
        SoftNet.Options o = SoftNet.Options.DEFAULT.withTimerScale(scale);
        Map<String, String> settings = Map.of("ibex.softroce.port", Integer.toString(udpPort),
                "ibex.softroce.devices", "srv=" + SoftNet.SERVER, "ibex.softroce.timerScale", Double.toString(scale));
        EventLoopGroup loops = EventLoopGroup.open(SoftRoceProvider.NAME, ProviderConfig.of(settings),
                SoftNet.loopOptions(o).withThreadName("peer"));
        switch (kind) {
            case RC -> StreamServer.listen(loops.next(), SoftNet.serverAddress(port), ListenOptions.DEFAULT
                    .withConnection(ConnectionOptions.DEFAULT), FaultMatrix.MAX);
            case UD -> DatagramSink.unicast(loops.next(), SoftNet.serverAddress(port), stream, FaultMatrix.MAX);
            case MCAST -> DatagramSink.multicast(loops.next(), new InetSocketAddress(SoftNet.address(SoftNet.SERVER),
                    0), new InetSocketAddress(SoftNet.address(group), port), stream, FaultMatrix.MAX);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Duration.ofHours(1));
    }
}
