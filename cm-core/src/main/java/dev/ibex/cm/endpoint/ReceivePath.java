package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.buffer.BufferOwner;
import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import java.util.ArrayDeque;

/**
 * A connection's receive side: sorts each receive completion (an error, the peer's credit update, a rendezvous
 * "done", a WRITE with immediate data, a fragment of a message of several buffers, a message), delivers messages
 * in order ({@link ConnectionHandler#onMessage}; those that overtake the passive side's ESTABLISHED wait for it),
 * and, as the {@link BufferOwner} of what it delivered, re-posts a receive or returns a credit for each message
 * the application releases. Allocates nothing per message. Loop-confined.
 */
final class ReceivePath implements BufferOwner {
    private final Connection c;
    /** The message of several buffers being received. */
    private final MessageFragments fragments = new MessageFragments();
    /** Owner of a received fragment that holds no credit (every fragment of a message but the last). */
    private final BufferOwner fragmentOwner = this::fragmentReleased;
    /** Messages from the shared receive queue the application holds. */
    private int sharedHeld;
    /** Messages that arrived before the passive side's ESTABLISHED, delivered right after it. */
    private ArrayDeque<Object> early;

    ReceivePath(Connection c) {
        this.c = c;
    }

    /** Received messages the application holds. */
    int held() {
        return c.rq == null ? sharedHeld : c.rq.held();
    }

    /** A receive completion ({@link WrId#RECV} from the connection's window, {@link WrId#SRQ_RECV} from the SRQ). */
    void received(CompletionBatch wc, int i, int kind, int slot) {
        Buffer b = c.device.pool().buffer(slot);
        boolean srq = kind == WrId.SRQ_RECV;
        if (!srq && (c.rq == null || c.rq.completed(slot) == null)) {
            return;
        }
        int status = wc.statusCode(i);
        if (status != 0) {
            recycle(b, srq);
            WcStatus s = WcStatus.ofCode(status);
            if (s != WcStatus.WR_FLUSH_ERR && c.state == ESTABLISHED) {
                c.machine.fatal(new WorkCompletionException(null, s, wc.vendorErr(i)));
            }
            return;
        }
        int flags = wc.flags(i);
        boolean withImm = (flags & WcFlags.WITH_IMM) != 0;
        boolean send = wc.opcode(i) == WcOpcode.RECV;
        Credits credits = c.credits;
        if (credits != null && send && Credits.isUpdate(wc.byteLen(i), withImm, wc.immData(i))) {
            recycle(b, srq);
            c.send.creditsReturned(Credits.count(wc.immData(i)));
            return;
        }
        if (credits != null && send && credits.carried(wc.byteLen(i), withImm, wc.immData(i))) {
            c.send.creditsReturned(Credits.count(wc.immData(i))); // rode in a message: which has no immediate data
            withImm = false;
            flags &= ~WcFlags.WITH_IMM;
        }
        if (c.rendezvous.isOn() && Rendezvous.isDone(wc.byteLen(i), withImm, wc.immData(i))) {
            recycle(b, srq);
            if (c.state == ESTABLISHED || c.state == DISCONNECTING) {
                c.rendezvous.done(wc.immData(i) & 0xFF_FFFF);
            }
            return;
        }
        if (wc.opcode(i) == WcOpcode.RECV_RDMA_WITH_IMM) {
            int imm = wc.immData(i);
            int len = wc.byteLen(i);
            recycle(b, srq);
            c.send.owe();
            if (c.state == ESTABLISHED || c.state == DISCONNECTING) {
                try {
                    c.handler.onRemoteWrite(c, imm, len);
                } catch (Throwable t) {
                    c.loop.reportUncaught(t);
                }
            }
            return;
        }
        if (srq && c.credits != null && (fragments.inProgress() || MessageFragments.isFirst(withImm, wc.immData(i),
                wc.byteLen(i)))) {
            fragment(b, wc, i, flags);
            return;
        }
        boolean invalidated = (flags & WcFlags.WITH_INV) != 0;
        if (invalidated) {
            c.exposures.peerInvalidated(wc.invalidatedRkey(i)); // before the message: it may say "done with it"
        }
        // imm_data (big-endian on the wire) and invalidated_rkey (host order) share the field
        b.deliver(0, wc.byteLen(i), flags, invalidated ? wc.invalidatedRkey(i) : withImm ? wc.immData(i) : 0,
                wc.srcQp(i), this);
        if (!srq) {
            c.rq.handedOut();
        } else {
            sharedHeld++;
        }
        ConnectionState state = c.state;
        if (state == ESTABLISHED || state == DISCONNECTING) {
            // a successful receive in DISCONNECTING arrived before the disconnect (its completion was only polled
            // after the CM event in the same loop turn): it is the peer's data, deliver it
            deliver(b);
        } else if (state == CONNECTING) {
            // data can overtake the passive side's ESTABLISHED (the peer starts once it has its own)
            keepEarly(b);
        } else {
            b.release();
        }
    }

    /** A receive that belongs to a message of several buffers (see {@link MessageFragments}). */
    private void fragment(Buffer b, CompletionBatch wc, int i, int flags) {
        int len = wc.byteLen(i);
        boolean withImm = (flags & WcFlags.WITH_IMM) != 0;
        if (!fragments.inProgress() && !fragments.start(wc.immData(i))) {
            recycle(b, true);
            protocolError("a first fragment announcing no others");
            return;
        }
        int max = c.options.maxMessageSize();
        if (fragments.bytesWith(len) > max) {
            recycle(b, true);
            fragments.abandon();
            protocolError("a message longer than this end's maxMessageSize (" + max + " B)");
            return;
        }
        boolean last = fragments.nextIsLast();
        b.deliver(0, len, flags, withImm ? wc.immData(i) : 0, wc.srcQp(i), last ? this : fragmentOwner);
        sharedHeld++;
        BufferList m = fragments.add(b, len, last && withImm, wc.immData(i));
        if (m == null) {
            return; // (the sender spent no credit on it: the whole message holds one, its last part's)
        }
        ConnectionState state = c.state;
        if (state == ESTABLISHED || state == DISCONNECTING) {
            deliver(m);
        } else if (state == CONNECTING) {
            keepEarly(m);
        } else {
            m.release();
        }
    }

    /** The peer broke the large-message protocol: the connection fails (its sender is not an Ibex end that obeys). */
    void protocolError(String what) {
        if (c.state == ESTABLISHED) {
            c.machine.fatal(new RdmaException("ibv_poll_cq", Errno.EMSGSIZE, "the peer sent " + what + "; closing"));
        }
    }

    // ---- delivery ----

    private void deliver(Buffer b) {
        if (c.rendezvous.inbound(b)) {
            return; // a descriptor, or a message that waits behind one being read
        }
        deliverNow(b);
    }

    private void deliver(BufferList m) {
        if (c.rendezvous.inbound(m)) {
            return;
        }
        deliverNow(m);
    }

    /** Hands a message to the application now (a rendezvous delivers in order through this). */
    void deliverNow(Object message) {
        if (message instanceof Buffer b) {
            try {
                c.handler.onMessage(c, b);
            } catch (Throwable t) {
                c.loop.reportUncaught(t);
            }
            return;
        }
        BufferList m = (BufferList) message;
        try {
            c.handler.onMessage(c, m);
        } catch (Throwable t) {
            c.loop.reportUncaught(t);
        }
    }

    private void keepEarly(Object message) {
        if (early == null) {
            early = new ArrayDeque<>();
        }
        early.add(message);
    }

    /** Established: what overtook it goes to the application now, in order, unless the handler closed meanwhile. */
    void deliverEarly() {
        ArrayDeque<Object> q = early;
        early = null;
        while (q != null && !q.isEmpty() && c.state == ESTABLISHED) {
            Object m = q.poll();
            if (m instanceof Buffer b) {
                deliver(b);
            } else {
                deliver((BufferList) m);
            }
        }
        if (q != null) {
            q.forEach(ReceivePath::releaseMessage);
        }
    }

    /** Teardown: what arrived early and was never delivered goes back. */
    void releaseEarly() {
        if (early != null) {
            early.forEach(ReceivePath::releaseMessage);
            early = null;
        }
    }

    /** Teardown: a message of several buffers half received goes back. */
    void abandonFragments() {
        fragments.abandon();
    }

    static void releaseMessage(Object m) {
        if (m instanceof Buffer b) {
            b.release();
        } else {
            ((BufferList) m).release();
        }
    }

    // ---- buffers coming back ----

    /**
     * A buffer a rendezvous READ filled becomes part of a received message: held by the application, and when
     * released back to the pool (it holds no credit: the descriptor's went back when it was read).
     */
    void adoptRead(Buffer b, int length) {
        b.deliver(0, length, 0, 0, c.qp == null ? 0 : c.qp.qpNum(), fragmentOwner);
        sharedHeld++;
    }

    /** A receive that is no message for the application goes back at once: to the SRQ, or re-posted. */
    private void recycle(Buffer b, boolean srq) {
        if (srq) {
            c.device.returnSrqBuffer(b);
        } else {
            b.reclaim();
            b.release();
            if (c.rq != null) {
                c.rq.recycled();
            }
        }
    }

    /** The application released a message. */
    @Override
    public void released(Buffer buffer) {
        if (c.shared) {
            sharedHeld--;
            c.device.released(buffer); // back to the pool: the SRQ refills
            c.send.owe();
        } else if (c.rq != null) {
            c.rq.released();
        }
    }

    /** A fragment of a received message other than its last was released (the message's credit is its last's). */
    private void fragmentReleased(Buffer buffer) {
        sharedHeld--;
        c.device.released(buffer);
    }
}
