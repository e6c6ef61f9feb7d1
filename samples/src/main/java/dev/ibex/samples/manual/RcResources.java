package dev.ibex.samples.manual;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WrOpcode;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;

/**
 * {@code struct resources} of the RC example with the functions that work on it: {@code resources_create},
 * {@code connect_qp} (swap {@link ConData}, RESET → INIT → RTR → RTS by hand), {@code post_send},
 * {@code post_receive}, {@code poll_completion} and {@code resources_destroy}. Each step prints the listing's
 * lines; a failing verb throws {@link Failed} with the listing's message. Threading: the program's main thread.
 */
final class RcResources {
    /** {@code MAX_POLL_CQ_TIMEOUT}: how long {@code poll_completion} busy-polls. */
    static final long MAX_POLL_CQ_TIMEOUT_MS = 2000;
    private static final int MR_FLAGS = Access.mask(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ,
            Access.REMOTE_WRITE));

    private final RcConfig config;
    private final PrintStream out;
    private final PrintStream err;
    private final Arena arena = Arena.ofShared();
    private DeviceContext ibCtx;
    private PortAttributes portAttr;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private MemoryRegion mr;
    private MemorySegment buf;
    private ConData remoteProps;
    private final CompletionBatch wc = CompletionBatch.allocate(arena, 1);
    private final SendBatch sr = SendBatch.allocate(arena, 1, 1);
    private final RecvBatch rr = RecvBatch.allocate(arena, 1, 1);

    RcResources(RcConfig config, PrintStream out, PrintStream err) {
        this.config = config;
        this.out = out;
        this.err = err;
    }

    /** {@code resources_create} after the TCP connection: device, port, PD, CQ of 1, buffer, MR, RC QP. */
    void create(Fabric fabric) {
        out.println("searching for IB devices in host");
        var devices = fabric.devices();
        if (devices.isEmpty()) {
            throw new Failed("found 0 device(s)");
        }
        out.printf("found %d device(s)%n", devices.size());
        for (DeviceContext d : devices) {
            if (config.devName == null) {
                config.devName = d.device().name();
                out.println("device not specified, using first one found: " + config.devName);
            }
            if (d.device().name().equals(config.devName)) {
                ibCtx = d;
                break;
            }
        }
        if (ibCtx == null) {
            throw new Failed("IB device " + config.devName + " wasn't found");
        }
        try {
            portAttr = ibCtx.queryPort(config.ibPort);
        } catch (RuntimeException e) {
            throw new Failed("ibv_query_port on port " + config.ibPort + " failed", e);
        }
        try {
            pd = ibCtx.allocPd();
        } catch (RuntimeException e) {
            throw new Failed("ibv_alloc_pd failed", e);
        }
        // each side will send only one WR, so Completion Queue with 1 entry is enough
        try {
            cq = ibCtx.createCompletionQueue(1, null, 0);
        } catch (RuntimeException e) {
            throw new Failed("failed to create CQ with 1 entries", e);
        }
        buf = arena.allocate(RcExample.MSG_SIZE, 8);
        if (config.serverName == null) {
            putString(RcExample.MSG);
            out.println("going to send the message: '" + string() + "'");
        }
        try {
            mr = pd.registerMemory(buf, Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        } catch (RuntimeException e) {
            throw new Failed(String.format("ibv_reg_mr failed with mr_flags=0x%x", MR_FLAGS), e);
        }
        out.printf("MR was registered with addr=0x%x, lkey=0x%x, rkey=0x%x, flags=0x%x%n", buf.address(), mr.lkey(),
                mr.rkey(), MR_FLAGS);
        try {
            qp = pd.createQueuePair(new QpInitAttr(cq, cq, null, new QpCap(1, 1, 1, 1, 0), QpType.RC, true, null));
        } catch (RuntimeException e) {
            throw new Failed("failed to create QP", e);
        }
        out.printf("QP was created, QP number=0x%x%n", qp.qpNum());
    }

    /** {@code connect_qp}: swap the connection data, bring the QP to RTS, then sync on 'Q'. */
    void connect(SockSync sock) throws java.io.IOException {
        Gid myGid = Gid.ZERO;
        if (config.gidIdx >= 0) {
            try {
                myGid = ibCtx.queryGid(config.ibPort, config.gidIdx);
            } catch (RuntimeException e) {
                throw new Failed(String.format("could not get gid for port %d, index %d", config.ibPort,
                        config.gidIdx), e);
            }
        }
        ConData local = new ConData(buf.address(), mr.rkey(), qp.qpNum(), portAttr.lid(), myGid);
        out.printf("%nLocal LID = 0x%x%n", portAttr.lid());
        ConData remote;
        try {
            remote = ConData.decode(sock.sync(local.encode()));
        } catch (java.io.IOException e) {
            throw new Failed("failed to exchange connection data between sides", e);
        }
        remoteProps = remote;
        out.printf("Remote address = 0x%x%n", remote.addr());
        out.printf("Remote rkey = 0x%x%n", remote.rkey());
        out.printf("Remote QP number = 0x%x%n", remote.qpNum());
        out.printf("Remote LID = 0x%x%n", remote.lid());
        if (config.gidIdx >= 0) {
            out.println("Remote GID = " + remote.gidText());
        }
        try {
            qp.modify(new QpAttr().state(QpState.INIT).portNum(config.ibPort).pkeyIndex(0).accessFlags(MR_FLAGS));
        } catch (RdmaException e) {
            err.println("failed to modify QP state to INIT");
            throw new Failed("change QP state to INIT failed", e);
        }
        if (config.serverName != null) {
            postReceive();
        }
        try {
            modifyToRtr(remote);
        } catch (RdmaException e) {
            err.println("failed to modify QP state to RTR");
            throw new Failed("failed to modify QP state to RTR", e);
        }
        try {
            qp.modify(new QpAttr().state(QpState.RTS).timeout(0x12).retryCnt(6).rnrRetry(0).sqPsn(0)
                    .maxRdAtomic(1));
        } catch (RdmaException e) {
            err.println("failed to modify QP state to RTS");
            throw new Failed("failed to modify QP state to RTR", e); // sic: the listing's message
        }
        out.println("QP state was change to RTS");
        try {
            sock.sync(new byte[] {'Q'});
        } catch (java.io.IOException e) {
            throw new Failed("sync error after QPs are were moved to RTS", e);
        }
    }

    /** {@code modify_qp_to_rtr}: MTU 256, the peer's QPN, PSN 0; a global route only with {@code -g}. */
    private void modifyToRtr(ConData remote) {
        AhAttr ah = config.gidIdx >= 0
                ? new AhAttr(remote.gid(), 0, config.gidIdx, 1, 0, remote.lid(), 0, 0, 0, true, 1) // port 1: sic
                : new AhAttr(remote.gid(), 0, 0, 0, 0, remote.lid(), 0, 0, 0, false, config.ibPort);
        qp.modify(new QpAttr().state(QpState.RTR).pathMtu(Mtu.MTU_256).destQpNum(remote.qpNum()).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(0x12).ahAttr(ah));
    }

    /** {@code post_receive}: one RR over the buffer, wr_id 0. */
    private void postReceive() {
        rr.clear(0).wrId(0, 0).single(0, buf.address(), RcExample.MSG_SIZE, mr.lkey());
        try {
            qp.postRecv(rr, 1);
        } catch (RuntimeException e) {
            err.println("failed to post RR");
            throw new Failed("failed to post RR", e);
        }
        out.println("Receive Request was posted");
    }

    /**
     * {@code post_send}: one signaled WR over the whole buffer; READ and WRITE target the peer's buffer.
     *
     * @param opcode {@link WrOpcode#SEND}, {@link WrOpcode#RDMA_READ} or {@link WrOpcode#RDMA_WRITE}
     */
    boolean postSend(int opcode) {
        sr.clear(0).wrId(0, 0).opcode(0, opcode).flags(0, SendFlags.SIGNALED)
                .single(0, buf.address(), RcExample.MSG_SIZE, mr.lkey());
        if (opcode != WrOpcode.SEND) {
            sr.rdma(0, remoteProps.addr(), remoteProps.rkey());
        }
        try {
            qp.postSend(sr, 1);
        } catch (RuntimeException e) {
            err.println("failed to post SR");
            return false;
        }
        out.println(switch (opcode) {
            case WrOpcode.SEND -> "Send Request was posted";
            case WrOpcode.RDMA_READ -> "RDMA Read Request was posted";
            case WrOpcode.RDMA_WRITE -> "RDMA Write Request was posted";
            default -> "Unknown Request was posted";
        });
        return true;
    }

    /** {@code poll_completion}: busy-polls the CQ for one completion, {@link #MAX_POLL_CQ_TIMEOUT_MS} at most. */
    boolean pollCompletion() {
        long start = System.nanoTime();
        int n;
        do {
            n = cq.poll(wc);
            if (n == 0) {
                Thread.yield(); // the C loop spins; yielding lets a software device on this machine run
            }
        } while (n == 0 && (System.nanoTime() - start) / 1_000_000L < MAX_POLL_CQ_TIMEOUT_MS);
        if (n == 0) {
            err.println("completion wasn't found in the CQ after timeout");
            return false;
        }
        out.printf("completion was found in CQ with status 0x%x%n", wc.statusCode(0));
        if (!wc.isSuccess(0)) {
            err.printf("got bad completion with status: 0x%x, vendor syndrome: 0x%x%n", wc.statusCode(0),
                    wc.vendorErr(0));
            return false;
        }
        return true;
    }

    /** The buffer as a C string ({@code %s}: up to the first NUL). */
    String string() {
        byte[] b = buf.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    /** {@code strcpy(res->buf, s)}. */
    void putString(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        buf.fill((byte) 0);
        MemorySegment.copy(b, 0, buf, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, b.length);
    }

    /** {@code resources_destroy}: QP, MR, CQ, PD in that order; the device belongs to the fabric. */
    boolean destroy() {
        boolean ok = true;
        ok &= close(qp, "failed to destroy QP");
        ok &= close(mr, "failed to deregister MR");
        ok &= close(cq, "failed to destroy CQ");
        ok &= close(pd, "failed to deallocate PD");
        arena.close();
        return ok;
    }

    private boolean close(AutoCloseable c, String message) {
        if (c == null) {
            return true;
        }
        try {
            c.close();
            return true;
        } catch (Exception e) {
            err.println(message);
            return false;
        }
    }

    /** A step failed: {@code message} is the listing's stderr line. */
    static final class Failed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failed(String message) {
            super(message, null, false, false);
        }

        Failed(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }
}
