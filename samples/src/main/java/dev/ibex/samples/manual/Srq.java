package dev.ibex.samples.manual;

import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.Providers;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A port of the SRQ example of the RDMA Aware Networks Programming User Manual (§9.3, {@code srq.c}) on the SPI:
 * both sides serve {@code -q} RC connections through one shared receive queue. The client sends {@code -w}
 * messages round-robin over its connections, then waits for the server's one "continue" message; the server
 * counts what arrives on the SRQ (printing the QP each came through), re-posting each receive, and answers on its
 * first connection; until {@code -c} messages were sent. Same options and output lines as the C program; the CM
 * is driven synchronously ({@link SyncCm}), as {@code rdma_create_ep}/{@code rdma_get_request} ids are.
 */
@Command(name = "srq", sortOptions = false, separator = " ",
        description = "SRQ shared by several RC connections (manual §9.3): a client blasts sends, a server counts.")
public final class Srq extends SampleCommand {
    @Option(names = "-s", description = "server mode") boolean server;
    @Option(names = "-a", paramLabel = "server_address",
            description = "the server's address (the server binds it, the client connects to it)")
    String serverName;
    @Option(names = "-p", paramLabel = "port_number", defaultValue = "51216") int serverPort;
    @Option(names = "-c", paramLabel = "msg_count", defaultValue = "100") int msgCount;
    @Option(names = "-l", paramLabel = "msg_length", defaultValue = "100000") int msgLength;
    @Option(names = "-q", paramLabel = "qp_count", defaultValue = "4") int qpCount;
    @Option(names = "-w", paramLabel = "max_wr", defaultValue = "64") int maxWr;
    @Mixin FabricOptions fabric = new FabricOptions();

    public Srq(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Srq(System.out, System.err)).execute(args));
    }

    @Override
    public Integer call() {
        if (serverName == null) {
            out.println("server address required (use -a)!");
            return 1;
        }
        if (qpCount <= 0 || maxWr <= 0 || msgLength <= 0 || msgCount < 0) {
            out.println("srq: qp_count, max_wr and msg_length must be positive, msg_count not negative");
            return 1;
        }
        InetSocketAddress rai = new InetSocketAddress(serverName, serverPort);
        if (rai.isUnresolved()) {
            err.println("rdma_getaddrinfo returned -1 errno 2");
            return 1;
        }
        Deadline deadline = Deadline.after(fabric.timeout());
        try (Fabric f = Providers.select(fabric.provider()).open(fabric.providerConfig());
                SyncCm cm = new SyncCm(f, deadline);
                SrqResources ctx = new SrqResources(f, cm, deadline, qpCount, msgLength, maxWr)) {
            return server ? runServer(cm, ctx, rai) : runClient(cm, ctx, rai);
        } catch (VerbError e) {
            err.println(e.getMessage());
            return e.ret();
        } catch (SyncCm.Unexpected e) {
            out.println(e.getMessage());
            return -1;
        } catch (Deadline.Expired e) {
            err.println("timed out after " + fabric.timeout().toSeconds() + " s");
            return SampleRun.TIMED_OUT;
        } finally {
            out.flush();
        }
    }

    /** {@code run_server}. */
    private int runServer(SyncCm cm, SrqResources ctx, InetSocketAddress rai) {
        long sendCount = 0;
        long recvCount = 0;
        int ret = init(ctx, true, rai);
        if (ret != 0) {
            return ret;
        }
        CmId listenId = ctx.srqId; // the srq id is already set up: listen on it
        VerbError.run("rdma_listen", () -> listenId.listen(4));
        out.println("waiting for connection from client...");
        for (int i = 0; i < qpCount; i++) {
            ctx.connId[i] = connectRequest(cm, listenId, "rdma_get_request");
            ctx.createQp(i, ctx.connId[i]);
            CmId id = ctx.connId[i];
            VerbError.run("rdma_accept", () -> id.accept(ConnParam.DEFAULT));
            expect(cm, id, CmEventType.ESTABLISHED, "rdma_accept");
        }
        CompletionBatch wc = ctx.wc();
        while (recvCount < msgCount) {
            int i = 0;
            while (i < maxWr && recvCount < msgCount) {
                ctx.awaitCompletion();
                int ne;
                do {
                    ne = ctx.pollSrqCq();
                    if (ne == 0) {
                        break;
                    }
                    if (!wc.isSuccess(0)) {
                        out.println("work completion status " + wc.status(0).description());
                        return 1;
                    }
                    recvCount++;
                    out.printf("recv count: %d, qp_num: %d%n", recvCount, wc.qpNum(0));
                    ctx.postRecv(wc.wrId(0));
                    i++;
                } while (ne != 0);
            }
            ctx.postSendAndWait(0);
            sendCount++;
            out.printf("send count: %d%n", sendCount);
        }
        return 0;
    }

    /** {@code run_client}. */
    private int runClient(SyncCm cm, SrqResources ctx, InetSocketAddress rai) {
        long sendCount = 0;
        long recvCount = 0;
        int ret = init(ctx, false, rai);
        if (ret != 0) {
            return ret;
        }
        for (int i = 0; i < qpCount; i++) {
            CmId id = VerbError.call("rdma_create_ep", () -> cm.createId(PortSpace.TCP));
            ctx.connId[i] = id;
            VerbError.run("rdma_create_ep", () -> id.resolveAddr(null, rai, 2000));
            expect(cm, id, CmEventType.ADDR_RESOLVED, "rdma_create_ep");
            VerbError.run("rdma_create_ep", () -> id.resolveRoute(2000));
            expect(cm, id, CmEventType.ROUTE_RESOLVED, "rdma_create_ep");
            ctx.createQp(i, id);
            VerbError.run("rdma_connect", () -> id.connect(ConnParam.DEFAULT));
            expect(cm, id, CmEventType.ESTABLISHED, "rdma_connect");
        }
        CompletionBatch wc = ctx.wc();
        while (sendCount < msgCount) {
            for (int i = 0; i < maxWr && sendCount < msgCount; i++) {
                ctx.postSendAndWait(i % qpCount);
                sendCount++;
                out.printf("send count: %d, qp_num: %d%n", sendCount, wc.qpNum(0));
            }
            // wait for a recv indicating that all buffers were processed
            ctx.awaitCompletion();
            int ne;
            do {
                ne = ctx.pollSrqCq();
                if (ne == 0) {
                    break;
                }
                if (!wc.isSuccess(0)) {
                    out.println("work completion status " + wc.status(0).description());
                    return 1;
                }
                recvCount++;
                out.printf("recv count: %d%n", recvCount);
                ctx.postRecv(wc.wrId(0));
            } while (ne != 0);
        }
        return 0;
    }

    /** {@code init_resources}; a failure has been printed as the listing prints it when this returns non-zero. */
    private int init(SrqResources ctx, boolean isServer, InetSocketAddress rai) {
        try {
            ctx.init(isServer, rai);
            return 0;
        } catch (VerbError e) {
            err.println(e.getMessage());
            out.println("init_resources returned " + e.ret());
            return e.ret();
        }
    }

    /** {@code rdma_get_request}: the next connection request to {@code listenId}. */
    private static CmId connectRequest(SyncCm cm, CmId listenId, String verb) {
        return expect(cm, listenId, CmEventType.CONNECT_REQUEST, verb).id();
    }

    /**
     * A synchronous id's wait: the event must be {@code type}; otherwise {@code verb} fails as librdmacm makes it
     * fail (ECONNREFUSED for a reject), after the line naming the event.
     */
    private static dev.ibex.cm.spi.CmEvent expect(SyncCm cm, CmId id, CmEventType type, String verb) {
        try {
            return cm.expect(id, type);
        } catch (SyncCm.Unexpected e) {
            int errno = e.event().type() == CmEventType.REJECTED ? 111 : Math.abs(e.event().status());
            throw new VerbError(e.getMessage(), verb, -1, errno);
        }
    }
}
