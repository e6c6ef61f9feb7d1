package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.ESTABLISHED;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.spi.WcStatus;
import java.util.Objects;

/**
 * A connection's send side: the checks and posting of every operation the application starts (SEND in its
 * variants, WRITE, READ, atomics), messages of several buffers and by rendezvous through the {@link SendBacklog},
 * the peer's {@link Credits} (spent per message, returned by its updates, owed to it as this end's application
 * releases what it received), and writability ({@link ConnectionHandler#onWritabilityChanged} when
 * {@link Connection#isWritable()} changes). Allocates nothing per operation. Loop-confined.
 */
final class SendPath {
    private final Connection c;
    /** SENDs waiting behind a message of several buffers (see {@link MessageFragments}). */
    private final SendBacklog backlog = new SendBacklog();
    private boolean pumping;
    /** What {@link ConnectionHandler#onWritabilityChanged} said last (it tells changes of {@link #isWritable()}). */
    private boolean announcedWritable = true;
    /** An owed credit update found the send queue full: retried as it drains. */
    private boolean updatePending;
    /** A credit update is owed: it is queued as this turn's sends are posted, after them ({@link #flushing}). */
    private boolean updateDue;

    SendPath(Connection c) {
        this.c = c;
    }

    // ---- what fits ----

    boolean isWritable() {
        SendQueue sq = c.sq;
        return sq != null && c.state == ESTABLISHED && sq.isWritable() && (c.credits == null || c.credits.canSend())
                && sq.writableSlots() > backlog.messages();
    }

    int writableSlots() {
        SendQueue sq = c.sq;
        if (sq == null || c.state != ESTABLISHED) {
            return 0;
        }
        // messages waiting behind a message of several buffers each hold the slot their last part will take
        int slots = Math.max(0, sq.writableSlots() - backlog.messages());
        // operations that consume a receive at the peer also need a credit; counted for all, to keep it one number
        return c.credits == null ? slots : Math.min(slots, c.credits.sendCredits());
    }

    int maxMessageSize() {
        CreditOffer peerOffer = c.peerOffer;
        int peer = peerOffer == null || c.credits == null ? 0 : peerOffer.maxMessageSize();
        LoopDevice d = c.device;
        int buffer = d == null ? 0 : d.pool().bufferSize();
        int own = c.options.maxMessageSize();
        return peer == 0 ? buffer : Math.max(Math.min(own, peer), Math.min(buffer, own));
    }

    /** Whether the peer reassembles messages of several buffers. */
    boolean peerReassembles() {
        return c.credits != null && c.peerOffer != null && c.peerOffer.maxMessageSize() > 0;
    }

    // ---- single operations ----

    void send(Buffer buffer, int offset, int length, long attachment) {
        checkOperation(buffer, offset, length);
        if (!backlog.isEmpty()) {
            enqueue(Operation.SEND, buffer, offset, length, 0, attachment);
            return;
        }
        checkCredit(Operation.SEND);
        SendQueue sq = c.sq;
        int i = sq.begin(Operation.SEND, buffer, attachment);
        sq.commit(i, Operation.SEND, buffer, offset, length);
        spendCredit();
    }

    void sendWithImm(Buffer buffer, int offset, int length, int immData, long attachment) {
        checkOperation(buffer, offset, length);
        checkCreditTag(length, immData);
        if (c.rendezvous.isOn() && Rendezvous.isDone(length, true, immData)) {
            throw new IllegalArgumentException("with the rendezvous, a zero-length message with immediate data "
                    + "0xC8xxxxxx is Ibex's \"done\"; give it a byte or another immediate value");
        }
        if (peerReassembles() && MessageFragments.isReserved(immData)) {
            throw new IllegalArgumentException("with large messages, immediate data 0xC6xxxxxx and 0xC7xxxxxx on a "
                    + "message of one buffer is Ibex's (fragments, rendezvous); use another immediate value");
        }
        if (!backlog.isEmpty()) {
            enqueue(Operation.SEND_WITH_IMM, buffer, offset, length, immData, attachment);
            return;
        }
        checkCredit(Operation.SEND_WITH_IMM);
        SendQueue sq = c.sq;
        int i = sq.begin(Operation.SEND_WITH_IMM, buffer, attachment);
        sq.batch().immData(i, immData);
        sq.commit(i, Operation.SEND_WITH_IMM, buffer, offset, length);
        spendCredit();
    }

    void sendWithInvalidate(Buffer buffer, int offset, int length, int rkey, long attachment) {
        checkOperation(buffer, offset, length);
        if (!backlog.isEmpty()) {
            enqueue(Operation.SEND_WITH_INV, buffer, offset, length, rkey, attachment);
            return;
        }
        checkCredit(Operation.SEND_WITH_INV);
        SendQueue sq = c.sq;
        int i = sq.begin(Operation.SEND_WITH_INV, buffer, attachment);
        sq.batch().invalidateRkey(i, rkey);
        sq.commit(i, Operation.SEND_WITH_INV, buffer, offset, length);
        spendCredit();
    }

    void write(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset, long attachment) {
        checkOperation(buffer, offset, length);
        target.checkRange(targetOffset, length);
        SendQueue sq = c.sq;
        int i = sq.begin(Operation.WRITE, buffer, attachment);
        sq.batch().rdma(i, target.address() + targetOffset, target.rkey());
        sq.commit(i, Operation.WRITE, buffer, offset, length);
    }

    void writeWithImm(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset, int immData,
            long attachment) {
        checkOperation(buffer, offset, length);
        target.checkRange(targetOffset, length);
        checkCredit(Operation.WRITE_WITH_IMM);
        SendQueue sq = c.sq;
        int i = sq.begin(Operation.WRITE_WITH_IMM, buffer, attachment);
        sq.batch().rdma(i, target.address() + targetOffset, target.rkey()).immData(i, immData);
        sq.commit(i, Operation.WRITE_WITH_IMM, buffer, offset, length);
        spendCredit();
    }

    void read(Buffer buffer, int offset, int length, RemoteBuffer source, long sourceOffset, long attachment) {
        checkOperation(buffer, offset, length);
        checkReadDepth();
        source.checkRange(sourceOffset, length);
        SendQueue sq = c.sq;
        int i = sq.begin(Operation.READ, buffer, attachment);
        sq.batch().rdma(i, source.address() + sourceOffset, source.rkey());
        sq.commit(i, Operation.READ, buffer, offset, length);
    }

    /** COMPARE_AND_SWAP ({@code a} expected, {@code b} desired) or FETCH_AND_ADD ({@code a} the delta, {@code b} 0). */
    void atomic(Operation op, Buffer result, int offset, RemoteBuffer target, long targetOffset, long a, long b,
            long attachment) {
        checkAtomic(result, offset, target, targetOffset);
        SendQueue sq = c.sq;
        int i = sq.begin(op, result, attachment);
        sq.batch().atomic(i, target.address() + targetOffset, a, b, target.rkey());
        sq.commit(i, op, result, offset, 8);
    }

    // ---- messages of several buffers, and by rendezvous ----

    void send(BufferList message, boolean withImm, int imm, long attachment) {
        Objects.requireNonNull(message, "message");
        int n = message.count();
        if (n == 0) {
            throw new IllegalArgumentException("an empty BufferList is no message");
        }
        c.checkLoop();
        c.checkEstablished();
        LoopDevice device = c.device;
        for (int k = 0; k < n; k++) {
            if (message.buffer(k).pool() != device.pool()) {
                throw new IllegalArgumentException("buffer " + k + " belongs to " + message.buffer(k).pool()
                        + ", not to this connection's " + device.pool() + " (allocate with connection.allocate())");
            }
        }
        if (withImm) {
            checkCreditTag(message.length(), imm);
        }
        if (withImm && c.rendezvous.isOn() && imm >>> 24 == Rendezvous.DESCRIPTOR_TAG) {
            throw new IllegalArgumentException("with the rendezvous, immediate data 0xC7xxxxxx is Ibex's (a "
                    + "descriptor); use another immediate value");
        }
        int max = maxMessageSize();
        if (message.length() > max || (n > 1 && !peerReassembles())) {
            throw new MessageTooLargeException(message.length(), max, !peerReassembles()
                    ? "the peer reassembles no message of several buffers (a C program, or an end in "
                    + "ReceiveMode.WINDOW): send one buffer per message" : "raise ConnectionOptions.withMaxMessageSize "
                    + "(the limit is the smaller of both ends', " + c.options.maxMessageSize() + " B here, "
                    + c.peerOffer.maxMessageSize() + " B at the peer)");
        }
        if (c.rendezvous.takes(message.length())) {
            sendByRendezvous(message, withImm, imm, attachment);
            return;
        }
        if (n == 1) {
            if (withImm) {
                sendWithImm(message.buffer(0), message.offset(0), message.length(0), imm, attachment);
            } else {
                send(message.buffer(0), message.offset(0), message.length(0), attachment);
            }
            message.clear();
            return;
        }
        checkCredit(withImm ? Operation.SEND_WITH_IMM : Operation.SEND);
        checkMessageSlot();
        lendAll(message);
        for (int k = 0; k < n; k++) {
            byte role = k == 0 ? SendBacklog.FIRST : k == n - 1 ? SendBacklog.LAST : SendBacklog.MIDDLE;
            Operation op = k == 0 || (k == n - 1 && withImm) ? Operation.SEND_WITH_IMM : Operation.SEND;
            int immK = k == 0 ? MessageFragments.firstImm(n) : imm;
            backlog.add(role, op, message.buffer(k), message.offset(k), message.length(k), immK,
                    k == n - 1 ? attachment : 0);
        }
        message.clear();
        spendCredit(); // the whole message takes one credit: the peer returns none for its other parts
        pump();
    }

    /**
     * A message of at least {@link ConnectionOptions#rendezvousThreshold()} bytes to a peer that speaks the
     * rendezvous: one backlog entry, whose turn exposes the buffers and sends the descriptor (see {@link Rendezvous});
     * it completes when the peer has read it.
     */
    private void sendByRendezvous(BufferList message, boolean withImm, int imm, long attachment) {
        if (withImm && MessageFragments.isReserved(imm)) {
            throw new IllegalArgumentException("with the rendezvous, immediate data 0xC6xxxxxx and 0xC7xxxxxx is "
                    + "Ibex's (fragments, rendezvous); use another immediate value");
        }
        checkCredit(withImm ? Operation.SEND_WITH_IMM : Operation.SEND);
        checkMessageSlot();
        lendAll(message); // throws for a buffer not held, or listed twice, before anything is taken
        int n = message.count();
        for (int k = 0; k < n; k++) {
            message.buffer(k).reclaim(); // (held again: the peer reads it through a window)
        }
        c.rendezvous.send(message, withImm, imm, attachment);
        message.clear();
        backlog.add(SendBacklog.RENDEZVOUS, withImm ? Operation.SEND_WITH_IMM : Operation.SEND, null, 0, 0, 0,
                attachment);
        spendCredit(); // the descriptor takes the message's one credit
        pump();
    }

    /** Lends every buffer of {@code message}; throws for one that is not held, before anything is queued. */
    private static void lendAll(BufferList message) {
        int n = message.count();
        for (int k = 0; k < n; k++) {
            try {
                message.buffer(k).lend();
            } catch (IllegalStateException e) {
                for (int j = 0; j < k; j++) {
                    message.buffer(j).reclaim();
                }
                throw e;
            }
        }
    }

    /** A rendezvous got the buffers it waited for: post what waits. */
    void pumpBacklog() {
        if (c.state == ESTABLISHED && !backlog.isEmpty()) {
            pump();
        }
    }

    /** The send queue has a slot for one more message (whose last part will take it). */
    private void checkMessageSlot() {
        SendQueue sq = c.sq;
        if (sq.writableSlots() - backlog.messages() <= 0) {
            throw new IllegalStateException("the send queue is full (" + sq.capacity() + " operations outstanding"
                    + (backlog.isEmpty() ? "" : ", " + backlog.messages() + " messages waiting behind a message of "
                    + "several buffers") + "): wait for onWritabilityChanged(true) or check writableSlots()");
        }
    }

    /** A SEND of one buffer that must wait behind a message of several buffers still going out. */
    private void enqueue(Operation op, Buffer buffer, int offset, int length, int imm, long attachment) {
        checkCredit(op);
        checkMessageSlot();
        buffer.lend();
        backlog.add(SendBacklog.SINGLE, op, buffer, offset, length, imm, attachment);
        spendCredit();
    }

    /** Posts from the backlog while slots and credits allow. */
    private void pump() {
        if (pumping) {
            return;
        }
        pumping = true;
        try {
            SendQueue sq = c.sq;
            while (!backlog.isEmpty() && c.state == ESTABLISHED) {
                byte role = backlog.role();
                if (role == SendBacklog.RENDEZVOUS) {
                    if (!c.rendezvous.advance()) {
                        break; // binds and descriptor parts wait for fragment slots
                    }
                    backlog.poll();
                    continue;
                }
                boolean internal = role == SendBacklog.FIRST || role == SendBacklog.MIDDLE;
                if (internal ? !sq.fragmentSlotFree() : sq.writableSlots() == 0) {
                    break; // (a message's own slot is always there: it was counted when the message was accepted)
                }
                Operation op = backlog.op();
                Buffer b = backlog.buffer();
                int offset = backlog.offset();
                int length = backlog.length();
                int imm = backlog.imm();
                long attachment = backlog.attachment();
                backlog.poll();
                int i = sq.begin(op, b, attachment, true, internal);
                if (op == Operation.SEND_WITH_IMM) {
                    sq.batch().immData(i, imm);
                } else if (op == Operation.SEND_WITH_INV) {
                    sq.batch().invalidateRkey(i, imm);
                }
                sq.commit(i, op, b, offset, length); // (its credit was spent when it was accepted)
            }
        } finally {
            pumping = false;
        }
        updateWritability();
    }

    /**
     * A send completion freed slots: what waited for one goes now, in the order it waited — an owed credit update,
     * owed rendezvous "done"s, the backlog, the rendezvous' binds and READs.
     */
    void slotsFreed() {
        if (updatePending) {
            sendCreditUpdate();
        }
        if (c.rendezvous.owesDones()) {
            c.rendezvous.retryDones();
        }
        if (!backlog.isEmpty()) {
            pump();
        }
        if (c.rendezvous.wantsSlots()) {
            c.rendezvous.pump();
        }
    }

    /** Teardown: SENDs that never left fail as flushed, in order, and their buffers go back. */
    void failBacklog() {
        while (!backlog.isEmpty()) {
            byte role = backlog.role();
            Operation op = backlog.op();
            Buffer b = backlog.buffer();
            long attachment = backlog.attachment();
            backlog.poll();
            if (role == SendBacklog.RENDEZVOUS) {
                c.rendezvous.failNext(); // its buffers go back, and it fails as flushed, in its place
                continue;
            }
            b.reclaim();
            b.release();
            if (role == SendBacklog.SINGLE || role == SendBacklog.LAST) {
                RdmaException flushed = new WorkCompletionException(op, WcStatus.WR_FLUSH_ERR, 0);
                try {
                    c.handler.onFailed(c, op, attachment, flushed);
                } catch (Throwable t) {
                    c.loop.reportUncaught(t);
                }
            }
        }
    }

    // ---- credits ----

    /** Immediate data the credit protocol reads as credits is refused (see {@link Credits}). */
    private void checkCreditTag(long length, int imm) {
        Credits credits = c.credits;
        if (credits == null || imm >>> 24 != Credits.UPDATE_TAG) {
            return;
        }
        if (credits.ride()) {
            throw new IllegalArgumentException("with credits riding in messages, immediate data 0xC5xxxxxx is Ibex's "
                    + "credit tag; use another immediate value (or ConnectionOptions.withCreditsInMessages(false))");
        }
        if (length == 0) {
            throw new IllegalArgumentException("with credits, a zero-length message with immediate data 0xC5xxxxxx "
                    + "is Ibex's credit update; give it a byte or another immediate value");
        }
    }

    /**
     * A message this end granted was consumed: owe the peer a credit, and return a batch of them in time — at the end
     * of this turn, after what the application sends in it (typically the reply to the message it just consumed), so
     * that the update's packet does not hold that reply back.
     */
    void owe() {
        if (c.credits != null && c.credits.consumed() && c.state == ESTABLISHED && !updateDue) {
            updateDue = true;
            c.sq.requestFlush();
        }
    }

    /** The send queue is about to post this turn's work: an owed credit update joins it, last. */
    void flushing() {
        if (updateDue) {
            updateDue = false;
            sendCreditUpdate();
        }
    }

    private void sendCreditUpdate() {
        updatePending = false;
        Credits credits = c.credits;
        int n = credits.takeOwed();
        if (n == 0 || c.state != ESTABLISHED) {
            credits.stillOwed(n);
            return;
        }
        if (credits.ride() && c.sq.carryCredits(n)) {
            return; // in a message of this turn: no work request, packet or ACK of its own
        }
        if (!c.sq.creditUpdate(n)) {
            credits.stillOwed(n);
            updatePending = true; // the send queue is full: the next completion frees a slot
        }
    }

    /** The peer's credit update arrived. */
    void creditsReturned(int n) {
        c.credits.returned(n);
        if (!backlog.isEmpty()) {
            pump();
        }
        updateWritability();
    }

    /** Tells the handler when {@link #isWritable()} changed. */
    void updateWritability() {
        if (c.state != ESTABLISHED || c.sq == null || pumping) {
            return;
        }
        boolean w = isWritable();
        if (w != announcedWritable) {
            announcedWritable = w;
            c.safely(() -> c.handler.onWritabilityChanged(c, w));
        }
    }

    /** Before posting an operation that consumes a receive at the peer: it needs a credit. */
    private void checkCredit(Operation op) {
        Credits credits = c.credits;
        if (credits != null && !credits.canSend()) {
            throw new IllegalStateException("no send credit: the peer has not consumed the " + credits.grant()
                    + " messages it granted; wait for onWritabilityChanged(true) or check isWritable() before " + op);
        }
    }

    private void spendCredit() {
        Credits credits = c.credits;
        if (credits != null) {
            credits.spend();
            if (!credits.canSend()) {
                c.loop.countCreditStall();
            }
            updateWritability();
        }
    }

    // ---- checks ----

    private void checkOperation(Buffer b, int offset, int length) {
        c.checkLoop();
        c.checkEstablished();
        if (b.pool() != c.device.pool()) {
            throw new IllegalArgumentException("the buffer belongs to " + b.pool() + ", not to this connection's "
                    + c.device.pool() + ": its key is not valid here (allocate with connection.allocate())");
        }
        if (offset < 0 || length < 0 || offset + length > b.capacity()) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + length) + ") lies outside the "
                    + b.capacity() + "-byte buffer");
        }
    }

    /** RDMA READs a rendezvous keeps outstanding at most: the connection's initiator depth. */
    int readDepth() {
        return Math.max(1, Math.min(c.options.initiatorDepth(), c.device.attributes().maxQpInitRdAtom()));
    }

    private void checkReadDepth() {
        if (Math.min(c.options.initiatorDepth(), c.device.attributes().maxQpInitRdAtom()) == 0) {
            throw new IllegalStateException("RDMA READ and atomics need initiatorDepth > 0 (see ConnectionOptions)");
        }
    }

    private void checkAtomic(Buffer result, int offset, RemoteBuffer target, long targetOffset) {
        checkOperation(result, offset, 8);
        checkReadDepth();
        target.checkRange(targetOffset, 8);
        if (((target.address() + targetOffset) & 7) != 0) {
            throw new IllegalArgumentException("atomics need an 8-byte aligned remote address");
        }
        if (!c.device.attributes().supportsAtomics()) {
            throw new RdmaException("ibv_post_send", Errno.ENOTSUP, c.device.context().device().name()
                    + " does not support atomic operations (atomic_cap is NONE)");
        }
    }
}
