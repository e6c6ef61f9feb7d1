package dev.ibex.samples.manual;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Set;

/**
 * {@code struct context} of the SRQ example (manual §9.3) and its common functions: {@code init_resources} (an id
 * bound to the device, the two message regions, the SRQ with {@code max_wr} receives all over the one receive
 * buffer, the SRQ's CQ on a completion channel, armed), {@code await_completion}, the {@code rdma_post_send} +
 * {@code rdma_get_send_comp} pair, re-posting a receive, and {@code destroy_resources}. librdmacm's share is done
 * here by hand: the PD its id allocates per device, and the send CQ {@code rdma_create_qp} makes when none is given.
 *
 * <p>Threading: the program's main thread.
 */
final class SrqResources implements AutoCloseable {
    final int msgLength;
    final int maxWr;
    final CmId[] connId;
    private final CompletionQueue[] sendCq;
    private final SyncCm cm;
    private final Deadline deadline;
    private final Arena arena = Arena.ofShared();
    private final Poller cqPoller;
    private final CompletionBatch wc = CompletionBatch.allocate(arena, 1);
    private final SendBatch send = SendBatch.allocate(arena, 1, 1);
    private final RecvBatch recv = RecvBatch.allocate(arena, 1, 1);
    CmId srqId;
    private DeviceContext device;
    private ProtectionDomain pd;
    private MemorySegment sendBuf;
    private MemorySegment recvBuf;
    private MemoryRegion sendMr;
    private MemoryRegion recvMr;
    private SharedReceiveQueue srq;
    private CompletionChannel srqCqChannel;
    CompletionQueue srqCq;

    SrqResources(Fabric fabric, SyncCm cm, Deadline deadline, int qpCount, int msgLength, int maxWr) {
        this.cm = cm;
        this.deadline = deadline;
        this.msgLength = msgLength;
        this.maxWr = maxWr;
        this.connId = new CmId[qpCount];
        this.sendCq = new CompletionQueue[qpCount];
        this.cqPoller = fabric.createPoller();
    }

    /** The last completion polled (by {@link #pollSrqCq} or {@link #postSendAndWait}). */
    CompletionBatch wc() {
        return wc;
    }

    /**
     * {@code init_resources}: the SRQ id is bound to the device by resolving the server's address (client) or
     * binding to it (server).
     */
    void init(boolean server, InetSocketAddress address) {
        srqId = VerbError.call("rdma_create_id", () -> cm.createId(PortSpace.TCP));
        if (!server) {
            VerbError.run("rdma_resolve_addr", () -> srqId.resolveAddr(null, address, 1000));
            cm.expect(srqId, CmEventType.ADDR_RESOLVED);
        } else {
            VerbError.run("rdma_bind_addr", () -> srqId.bind(address));
        }
        device = srqId.device();
        pd = VerbError.call("ibv_alloc_pd", device::allocPd); // librdmacm: one PD per device, made on bind
        recvBuf = arena.allocate(msgLength, 64);
        sendBuf = arena.allocate(msgLength, 64);
        recvMr = VerbError.call("rdma_reg_msgs", () -> pd.registerMemory(recvBuf, Set.of(Access.LOCAL_WRITE)));
        sendMr = VerbError.call("rdma_reg_msgs", () -> pd.registerMemory(sendBuf, Set.of(Access.LOCAL_WRITE)));
        srq = VerbError.call("rdma_create_srq", () -> pd.createSharedReceiveQueue(maxWr, 1, 0));
        for (int i = 0; i < maxWr; i++) {
            postRecv(0);
        }
        srqCqChannel = VerbError.call("ibv_create_comp_channel", device::createCompletionChannel);
        srqCq = VerbError.call("ibv_create_cq", () -> device.createCompletionQueue(maxWr, srqCqChannel, 0));
        cqPoller.register(srqCqChannel, srqCqChannel);
        // Make sure that we get notified on the first completion
        VerbError.run("ibv_req_notify_cq", () -> srqCq.requestNotify(false));
    }

    /**
     * The attributes every connection's QP is created with ({@code recv_cq} the SRQ's CQ, {@code srq},
     * {@code sq_sig_all} 0), and its send CQ, made as {@code rdma_create_qp} makes it.
     */
    void createQp(int i, CmId id) {
        sendCq[i] = VerbError.call("rdma_create_qp", () -> id.device().createCompletionQueue(maxWr, null, 0));
        QpInitAttr attr = new QpInitAttr(sendCq[i], srqCq, srq, new QpCap(maxWr, maxWr, 1, 1, 0), QpType.RC, false,
                this);
        VerbError.run("rdma_create_qp", () -> id.createQp(pd, attr));
    }

    /** {@code rdma_post_recv(srq_id, context, recv_buf, msg_length, recv_mr)}: the receive goes to the SRQ. */
    void postRecv(long wrId) {
        recv.clear(0).wrId(0, wrId).single(0, recvBuf.address(), msgLength, recvMr.lkey());
        VerbError.run("rdma_post_recv", () -> srq.postRecv(recv, 1));
    }

    /** {@code await_completion}: {@code ibv_get_cq_event}, ack it, re-arm. */
    void awaitCompletion() {
        while (true) {
            CompletionQueue fired = srqCqChannel.poll();
            if (fired != null) {
                fired.ackEvents(1);
                VerbError.run("ibv_req_notify_cq", () -> srqCq.requestNotify(false));
                return;
            }
            cqPoller.poll(deadline.waitNanos(), a -> { });
        }
    }

    /** {@code ibv_poll_cq(srq_cq, 1, &wc)}. */
    int pollSrqCq() {
        return srqCq.poll(wc);
    }

    /**
     * {@code rdma_post_send} of the whole send buffer, signaled, on connection {@code i}, then
     * {@code rdma_get_send_comp} (which polls the id's send CQ; {@link #wc()} holds the completion).
     */
    void postSendAndWait(int i) {
        QueuePair qp = connId[i].qp();
        send.clear(0).wrId(0, 0).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                .single(0, sendBuf.address(), msgLength, sendMr.lkey());
        VerbError.run("rdma_post_send", () -> qp.postSend(send, 1));
        while (sendCq[i].poll(wc) == 0) {
            deadline.waitNanos(); // throws once the run's bound has passed
            Thread.yield();
        }
    }

    /**
     * {@code destroy_resources}: each connection disconnected if its QP is in RTS, its QP and id destroyed; then
     * the regions, the SRQ's CQ and channel, the SRQ and its id.
     */
    @Override
    public void close() {
        for (int i = 0; i < connId.length; i++) {
            CmId id = connId[i];
            if (id != null) {
                quietly(() -> {
                    if (id.qp() != null && id.qp().state() == QpState.RTS) {
                        id.disconnect();
                    }
                });
                quietly(id::destroyQp);
                quietly(id::close);
            }
            if (sendCq[i] != null) {
                quietly(sendCq[i]::close);
            }
        }
        quietly(() -> close(recvMr));
        quietly(() -> close(sendMr));
        if (srqCqChannel != null) {
            quietly(() -> cqPoller.deregister(srqCqChannel));
        }
        quietly(() -> close(srqCq));
        quietly(() -> close(srqCqChannel));
        quietly(() -> close(srq));
        quietly(() -> close(srqId));
        quietly(() -> close(pd));
        quietly(cqPoller::close);
        arena.close();
    }

    private static void close(AutoCloseable c) throws Exception {
        if (c != null) {
            c.close();
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void quietly(Step step) {
        try {
            step.run();
        } catch (Exception e) {
            // teardown goes on, as destroy_resources ignores every return value
        }
    }
}
