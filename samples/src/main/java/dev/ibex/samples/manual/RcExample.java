package dev.ibex.samples.manual;

import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import java.io.IOException;
import java.io.PrintStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A port of the RC example of the RDMA Aware Networks Programming User Manual (§8.2, {@code RDMA_RC_example.c}) on
 * the verbs-level SPI: the two sides swap {@link ConData} over a TCP socket, move their RC QPs to RTS by hand, then
 * the server SENDs, the client RDMA READs the server's buffer and RDMA WRITEs it. Same options and output lines as
 * the C program; without a host it is the server. On RoCE (rxe, soft-roce) it needs {@code -g}: without a global
 * route the move to RTR fails, as it does in C.
 */
@Command(name = "RDMA_RC_example", sortOptions = false, separator = " ",
        description = "RC SEND, RDMA READ and RDMA WRITE with the QP details swapped over TCP (manual §8.2).")
public final class RcExample extends SampleCommand {
    static final String MSG = "SEND operation ";
    static final String RDMAMSGR = "RDMA read operation ";
    static final String RDMAMSGW = "RDMA write operation";
    /**
     * The buffer and every transfer: the longest message with its NUL. The listing has {@code strlen(MSG) + 1}
     * (16), into which it {@code strcpy}s the 21-byte read and write messages; the repaired C fixture and this port
     * size the buffer for them so that what is printed is defined.
     */
    static final int MSG_SIZE = RDMAMSGR.length() + 1;

    @Option(names = {"-p", "--port"}, paramLabel = "<port>", defaultValue = "19875",
            description = "listen on/connect to port <port> (default 18515)") // sic: the code's default is 19875
    int tcpPort;
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "<dev>",
            description = "use IB device <dev> (default first device found)")
    String devName;
    @Option(names = {"-i", "--ib-port"}, paramLabel = "<port>", defaultValue = "1",
            description = "use port <port> of IB device (default 1)")
    int ibPort;
    @Option(names = {"-g", "--gid-idx"}, paramLabel = "<git index>", defaultValue = "-1",
            description = "gid index to be used in GRH (default not used)")
    int gidIdx;
    @Parameters(arity = "0..1", paramLabel = "<host>", description = "connect to server at <host>")
    String serverName;
    @Mixin FabricOptions fabric = new FabricOptions();

    public RcExample(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RcExample(System.out, System.err)).execute(args));
    }

    @Override
    public Integer call() {
        if (ibPort < 0 || gidIdx < -1) {
            usage();
            return 1;
        }
        RcConfig config = new RcConfig(devName, serverName, tcpPort, ibPort, gidIdx);
        printConfig(config);
        Deadline deadline = Deadline.after(fabric.timeout());
        int rc = 1;
        RcResources res = new RcResources(config, out, err);
        SockSync sock = null;
        String step = "failed to create resources";
        try (Fabric f = Providers.select(fabric.provider()).open(fabric.providerConfig())) {
            try {
                sock = connectSocket(config, deadline);
                out.println("TCP connection was established");
                res.create(f);
                step = "failed to connect QPs";
                res.connect(sock);
                step = null;
                rc = transfer(config, res, sock) ? 0 : 1;
            } catch (RcResources.Failed e) {
                err.println(e.getMessage() + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : ""));
                if (step != null) {
                    err.println(step);
                }
            } catch (Deadline.Expired e) {
                err.println("timed out after " + fabric.timeout().toSeconds() + " s");
                rc = SampleRun.TIMED_OUT;
            } catch (IOException e) {
                err.println(e.getMessage());
            } finally {
                if (!res.destroy()) {
                    err.println("failed to destroy resources");
                    rc = rc == 0 ? 1 : rc;
                }
                if (sock != null) {
                    try {
                        sock.close();
                    } catch (IOException e) {
                        err.println("failed to close socket");
                    }
                }
            }
        }
        out.printf("%ntest result is %d%n", rc);
        out.flush();
        return rc;
    }

    private SockSync connectSocket(RcConfig config, Deadline deadline) throws IOException {
        if (config.serverName != null) {
            try {
                return SockSync.connect(config.serverName, config.tcpPort, deadline);
            } catch (IOException e) {
                throw new RcResources.Failed(String.format("failed to establish TCP connection to server %s, port %d",
                        config.serverName, config.tcpPort), e);
            }
        }
        try {
            return SockSync.accept(config.tcpPort, deadline,
                    () -> out.printf("waiting on port %d for TCP connection%n", config.tcpPort));
        } catch (java.net.SocketTimeoutException e) {
            throw new Deadline.Expired();
        } catch (IOException e) {
            throw new RcResources.Failed(String.format("failed to establish TCP connection with client on port %d",
                    config.tcpPort), e);
        }
    }

    /** {@code main} after {@code connect_qp}: SEND, then the client's READ and WRITE, with the syncs between. */
    private boolean transfer(RcConfig config, RcResources res, SockSync sock) throws IOException {
        boolean client = config.serverName != null;
        if (!client && !res.postSend(WrOpcode.SEND)) {
            err.println("failed to post sr");
            return false;
        }
        if (!res.pollCompletion()) {
            err.println("poll completion failed");
            return false;
        }
        if (client) {
            out.println("Message is: '" + res.string() + "'");
        } else {
            res.putString(RDMAMSGR);
        }
        sync(sock, 'R', "sync error before RDMA ops");
        if (client) {
            if (!res.postSend(WrOpcode.RDMA_READ)) {
                err.println("failed to post SR 2");
                return false;
            }
            if (!res.pollCompletion()) {
                err.println("poll completion failed 2");
                return false;
            }
            out.println("Contents of server's buffer: '" + res.string() + "'");
            res.putString(RDMAMSGW);
            out.println("Now replacing it with: '" + res.string() + "'");
            if (!res.postSend(WrOpcode.RDMA_WRITE)) {
                err.println("failed to post SR 3");
                return false;
            }
            if (!res.pollCompletion()) {
                err.println("poll completion failed 3");
                return false;
            }
        }
        sync(sock, 'W', "sync error after RDMA ops");
        if (!client) {
            out.println("Contents of server buffer: '" + res.string() + "'");
        }
        return true;
    }

    private static void sync(SockSync sock, char c, String message) {
        try {
            sock.sync(new byte[] {(byte) c});
        } catch (java.net.SocketTimeoutException e) {
            throw new Deadline.Expired();
        } catch (IOException e) {
            throw new RcResources.Failed(message, e);
        }
    }

    /** {@code print_config}. */
    private void printConfig(RcConfig config) {
        out.println(" ------------------------------------------------");
        out.println(" Device name : \"" + (config.devName == null ? "(null)" : config.devName) + "\"");
        out.println(" IB port : " + config.ibPort);
        if (config.serverName != null) {
            out.println(" IP : " + config.serverName);
        }
        out.println(" TCP port : " + config.tcpPort);
        if (config.gidIdx >= 0) {
            out.println(" GID index : " + config.gidIdx);
        }
        out.println(" ------------------------------------------------");
        out.println();
    }

    /** {@code usage}. */
    private void usage() {
        out.println("Usage:");
        out.println(" RDMA_RC_example            start a server and wait for connection");
        out.println(" RDMA_RC_example <host>     connect to server at <host>");
        out.println();
        out.println("Options:");
        out.println(" -p, --port <port> listen on/connect to port <port> (default 18515)");
        out.println(" -d, --ib-dev <dev> use IB device <dev> (default first device found)");
        out.println(" -i, --ib-port <port> use port <port> of IB device (default 1)");
        out.println(" -g, --gid-idx <git index> gid index to be used in GRH (default not used)");
    }
}
