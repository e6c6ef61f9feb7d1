package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.Flushable;
import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import java.lang.foreign.Arena;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A QP's send side: a ring of operation slots as deep as {@code max_send_wr}, filled in posting order. Operations
 * written during a loop turn go out together at its end (one {@code ibv_post_send}); the last work request of each
 * batch is signaled, so at most a batch goes unsignaled and one signaled completion retires every earlier slot (an
 * RC send queue completes in order). Slots count until retired, unsignaled ones included, so the QP never holds
 * more than {@code max_send_wr}. Writability has hysteresis: not writable when full, writable again at half.
 * A few slots beyond what the application may use are kept for the queue's own work requests — invalidating memory
 * windows (LOCAL_INV), keepalive probes, credit updates — so they never take a slot an operation was promised; when
 * they are all busy a window is deallocated instead, a probe waits for the next interval and an update for the next
 * completion.
 * Allocates nothing per operation; its per-slot arrays start at 16 slots and double the first time more operations
 * are outstanding, up to {@code max_send_wr} (4 times for the default depth). Loop-confined.
 */
final class SendQueue implements Flushable {
    private static final Logger LOG = LoggerFactory.getLogger(SendQueue.class);

    /** Where completions go. */
    interface Owner {
        void completed(Operation op, long attachment);

        void failed(Operation op, long attachment, RdmaException error);

        void writabilityChanged(boolean writable);

        /** The QP refused to post: the connection cannot continue. */
        void postFailed(RdmaException error);

        /**
         * A {@link SendQueue#probe() keepalive probe} completed ({@code error == null}) or failed.
         *
         * @param error {@code null} on success, else why it failed
         */
        default void probeDone(RdmaException error) {}

        /** A BIND_MW or LOCAL_INV posted for {@code e} completed ({@code error == null}) or failed. */
        void exposureStep(Operation op, Exposure e, RdmaException error);

        /**
         * A {@link SendQueue#creditUpdate credit update} completed ({@code error == null}) or failed.
         *
         * @param credits the credits the update granted the peer
         * @param error {@code null} on success, else why it failed
         */
        default void creditUpdateDone(int credits, RdmaException error) {}

        /**
         * The queue is about to post what this turn batched: the last chance to queue work that should follow it (a
         * credit update owed this turn goes after the turn's messages, so that it delays none of them).
         */
        default void flushing() {}

        /**
         * A fragment of a message of several buffers (not its last) completed ({@code error == null}) or failed.
         *
         * @param error {@code null} on success, else why it failed
         */
        default void fragmentDone(RdmaException error) {}

        /**
         * A rendezvous READ ({@link SendQueue#beginRead}) completed ({@code error == null}) or failed.
         *
         * @param error {@code null} on success, else why it failed
         */
        default void rendezvousReadDone(RdmaException error) {}
    }

    private final EventLoop loop;
    private final QueuePair qp;
    private final int handle;
    private final Owner owner;
    private final int capacity;
    /** Slots the application may use; the rest ({@code capacity - userCapacity}) are the queue's own. */
    private final int userCapacity;
    /** Slots kept for the queue's own work requests. */
    private final int reserveCapacity;
    /** Slots in use by the queue's own work requests taken from the reserve. */
    private int reserveInUse;
    /** Slots kept for the fragments of messages of several buffers (all but each message's last). */
    private final int fragmentCapacity;
    private int fragmentsInUse;
    private final int maxInline;
    private final SendBatch batch;
    /*
     * Per slot, in arrays indexed by the operation's sequence number modulo their length (at(seq)), a power of two that
     * starts at INITIAL_SLOTS and doubles while more operations are outstanding, up to max_send_wr: a connection holds
     * the arrays its traffic needs, not max_send_wr's (about 220 slots by default, 4 KB per connection end). The slot
     * a work request id carries is the sequence modulo max_send_wr, which does not change when the arrays grow.
     */
    private Operation[] ops;
    private long[] attachments;
    private Buffer[] buffers;
    /** Per slot, the exposure a BIND_MW or LOCAL_INV works on; made at the first (most connections never bind). */
    private Exposure[] exposures;
    private boolean[] fromReserve;
    private final boolean[] inline;
    /** What an internal slot carries: 0 an application operation (or a bind), {@link #PROBE}, {@link #UPDATE}. */
    private byte[] internal;
    private int mask;
    private static final int INITIAL_SLOTS = 16;
    private static final byte PROBE = 1;
    private static final byte UPDATE = 2;
    private static final byte FRAGMENT = 3;
    private static final byte RENDEZVOUS_READ = 4;
    private static final byte RENDEZVOUS_DONE = 5;
    private long head;
    private long tail;
    private int pending;
    /** The batch index of the last plain SEND with bytes queued for this post (one a credit update may ride), or -1. */
    private int rideable = -1;
    private boolean flushQueued;
    private boolean writable = true;

    /**
     * @param reserve slots of {@code max_send_wr} kept for the queue's own work requests (LOCAL_INV, probes, credit
     *     updates)
     * @param fragments slots of {@code max_send_wr} kept for fragments of messages of several buffers (so a message's
     *     parts never take a slot an operation was promised: the message as a whole takes one, for its last part);
     *     the application gets the rest
     */
    SendQueue(EventLoop loop, QueuePair qp, int handle, int signalInterval, int reserve, int fragments, Owner owner) {
        this.loop = loop;
        this.qp = qp;
        this.handle = handle;
        this.owner = owner;
        this.capacity = qp.cap().maxSendWr();
        this.userCapacity = Math.max(1, capacity - reserve - fragments);
        this.reserveCapacity = reserve;
        this.fragmentCapacity = Math.max(0, capacity - userCapacity - reserve);
        this.maxInline = qp.cap().maxInlineData();
        this.batch = SendBatch.allocate(Arena.ofAuto(), Math.max(1, Math.min(signalInterval, capacity)), 1);
        int slots = Math.max(1, Math.min(INITIAL_SLOTS, Integer.highestOneBit(capacity - 1) << 1));
        this.ops = new Operation[slots];
        this.attachments = new long[slots];
        this.buffers = new Buffer[slots];
        this.fromReserve = new boolean[slots];
        this.internal = new byte[slots];
        this.mask = slots - 1;
        this.inline = new boolean[batch.capacity()];
    }

    /** Slots the application may use. */
    int capacity() {
        return userCapacity;
    }

    /** Slots in use: posted or batched, not yet retired. */
    int outstanding() {
        return (int) (head - tail);
    }

    /** Slots in use by the application's operations (and binds). */
    private int userOutstanding() {
        return (int) (head - tail) - reserveInUse - fragmentsInUse;
    }

    /** Whether a fragment (not a message's last part) may be posted now. */
    boolean fragmentSlotFree() {
        return fragmentsInUse < fragmentCapacity && head - tail < capacity;
    }

    int writableSlots() {
        return Math.max(0, userCapacity - userOutstanding());
    }

    boolean isWritable() {
        return writable;
    }

    /**
     * Claims the next slot for {@code op} on {@code buffer} (lent to the hardware from now on) and returns its
     * index in {@link #batch()} so the caller can set the operation's fields before {@link #commit}.
     *
     * @throws IllegalStateException when the queue is full or the buffer is not held
     */
    int begin(Operation op, Buffer buffer, long attachment) {
        return begin(op, buffer, attachment, false, false);
    }

    /**
     * {@link #begin(Operation, Buffer, long)} for a buffer the caller lent already ({@code lent}), and for a fragment
     * of a message of several buffers that is not its last ({@code fragment}: its completion goes to
     * {@link Owner#fragmentDone}, not to the application).
     */
    int begin(Operation op, Buffer buffer, long attachment, boolean lent, boolean fragment) {
        if (fragment ? !fragmentSlotFree() : userOutstanding() >= userCapacity) {
            throw new IllegalStateException("the send queue is full (" + userCapacity + " operations outstanding): "
                    + "wait for onWritabilityChanged(true) or check writableSlots()");
        }
        if (!lent) {
            buffer.lend();
        }
        int k = claim();
        internal[k] = fragment ? FRAGMENT : 0;
        if (fragment) {
            fragmentsInUse++;
        }
        ops[k] = op;
        attachments[k] = attachment;
        buffers[k] = buffer;
        int i = pending;
        batch.wrId(i, WrId.encode(op.wrKind(), handle, slot())).opcode(i, op.opcode());
        return i;
    }

    /**
     * Claims a fragment slot for a rendezvous READ into {@code buffer}, which the caller lent already (one buffer may
     * take several READs); its completion goes to {@link Owner#rendezvousReadDone} and leaves the buffer lent. The
     * caller sets the remote address and commits.
     */
    int beginRead(Buffer buffer) {
        int i = begin(Operation.READ, buffer, 0, true, true);
        internal[at(head)] = RENDEZVOUS_READ;
        return i;
    }

    /**
     * Claims the next slot for a work request that moves no data (BIND_MW, LOCAL_INV) on behalf of {@code e}; the
     * caller sets its operands in {@link #batch()} and calls {@link #commitLocal}.
     *
     * @throws IllegalStateException when the queue is full
     */
    int beginLocal(Operation op, Exposure e) {
        return beginLocal(op, e, false);
    }

    /**
     * {@link #beginLocal(Operation, Exposure)}; a bind the queue makes for a rendezvous ({@code fragment}) takes a
     * fragment slot, as the parts of a message do, never one the application was promised.
     */
    int beginLocal(Operation op, Exposure e, boolean fragment) {
        boolean reserve = op == Operation.LOCAL_INV;
        if (fragment ? !fragmentSlotFree() : reserve ? reserveInUse >= reserveCapacity || head - tail >= capacity
                : userOutstanding() >= userCapacity) {
            throw new IllegalStateException("the send queue is full (" + (reserve ? "no slot left for LOCAL_INV"
                    : userCapacity + " operations outstanding") + "): wait for onWritabilityChanged(true)");
        }
        int k = claim();
        ops[k] = op;
        attachments[k] = 0;
        buffers[k] = null;
        if (exposures == null) {
            exposures = new Exposure[ops.length];
        }
        exposures[k] = e;
        fromReserve[k] = reserve;
        internal[k] = fragment ? FRAGMENT : 0;
        if (reserve) {
            reserveInUse++;
        }
        if (fragment) {
            fragmentsInUse++;
        }
        int i = pending;
        batch.wrId(i, WrId.encode(op.wrKind(), handle, slot())).opcode(i, op.opcode());
        return i;
    }

    /** Queues a local work request for posting (no data, never inline). */
    void commitLocal(int i) {
        inline[i] = false;
        batch.numSge(i, 0).flags(i, 0);
        queued();
    }

    SendBatch batch() {
        return batch;
    }

    /**
     * Queues a keepalive probe: a zero-length RDMA WRITE without a memory key (IBA C9-88: a responder checks no
     * R_Key for a zero-length transfer) that consumes no receive at the peer and is reported to
     * {@link Owner#probeDone}, never as an operation. Returns false when the queue is full.
     */
    boolean probe() {
        int slot = takeReserved(Operation.WRITE, PROBE, 0);
        if (slot < 0) {
            return false;
        }
        int i = pending;
        inline[i] = false;
        batch.wrId(i, WrId.encode(Operation.WRITE.wrKind(), handle, slot)).opcode(i, Operation.WRITE.opcode())
                .rdma(i, 0, 0).numSge(i, 0).flags(i, 0);
        queued();
        return true;
    }

    /**
     * Queues a credit update (see {@link Credits}): a zero-length SEND with immediate data, reported to
     * {@link Owner#creditUpdateDone}. Returns false when no reserved slot is free.
     */
    boolean creditUpdate(int credits) {
        int slot = takeReserved(Operation.SEND_WITH_IMM, UPDATE, credits);
        if (slot < 0) {
            return false;
        }
        int i = pending;
        inline[i] = false;
        batch.wrId(i, WrId.encode(Operation.SEND_WITH_IMM.wrKind(), handle, slot))
                .opcode(i, Operation.SEND_WITH_IMM.opcode()).immData(i, Credits.update(credits)).numSge(i, 0)
                .flags(i, 0);
        queued();
        return true;
    }

    /**
     * Queues a rendezvous "done" (see {@link Rendezvous}): a zero-length SEND with immediate data {@code imm} that needs
     * no credit. Returns false when no reserved slot is free.
     */
    boolean rendezvousDone(int imm) {
        int slot = takeReserved(Operation.SEND_WITH_IMM, RENDEZVOUS_DONE, 0);
        if (slot < 0) {
            return false;
        }
        int i = pending;
        inline[i] = false;
        batch.wrId(i, WrId.encode(Operation.SEND_WITH_IMM.wrKind(), handle, slot))
                .opcode(i, Operation.SEND_WITH_IMM.opcode()).immData(i, imm).numSge(i, 0).flags(i, 0);
        queued();
        return true;
    }

    /**
     * Lets a credit update ride in the last plain message (a SEND with bytes, no immediate data, not a fragment)
     * queued for this post: it becomes a SEND with immediate data {@code 0xC5 << 24 | credits} (see {@link Credits}).
     * Its completion is the message's, reported as the SEND it was. Returns false when no such message waits.
     */
    boolean carryCredits(int credits) {
        int i = rideable;
        if (i < 0) {
            return false;
        }
        rideable = -1;
        batch.opcode(i, Operation.SEND_WITH_IMM.opcode()).immData(i, Credits.update(credits));
        return true;
    }

    /** A reserved slot for the queue's own {@code kind} of work request, or -1 when none is free. */
    private int takeReserved(Operation op, byte kind, long attachment) {
        if (reserveInUse >= reserveCapacity || head - tail >= capacity) {
            return -1;
        }
        int k = claim();
        ops[k] = op;
        attachments[k] = attachment;
        buffers[k] = null;
        internal[k] = kind;
        fromReserve[k] = true;
        reserveInUse++;
        return slot();
    }

    /** The array index of the operation with sequence number {@code seq}. */
    private int at(long seq) {
        return (int) seq & mask;
    }

    /** The slot the next operation's work request id carries: its sequence number modulo {@code max_send_wr}. */
    private int slot() {
        return (int) (head % capacity);
    }

    /**
     * The array index for the next operation ({@code head}), after doubling the arrays when every index holds one
     * outstanding. The caller has checked that fewer than {@code max_send_wr} are outstanding.
     */
    private int claim() {
        if (head - tail > mask) {
            grow();
        }
        return at(head);
    }

    private void grow() {
        int slots = ops.length * 2;
        Operation[] o = new Operation[slots];
        long[] a = new long[slots];
        Buffer[] b = new Buffer[slots];
        Exposure[] e = exposures != null ? new Exposure[slots] : null;
        boolean[] r = new boolean[slots];
        byte[] in = new byte[slots];
        int m = slots - 1;
        for (long seq = tail; seq < head; seq++) {
            int from = at(seq);
            int to = (int) seq & m;
            o[to] = ops[from];
            a[to] = attachments[from];
            b[to] = buffers[from];
            if (e != null) {
                e[to] = exposures[from];
            }
            r[to] = fromReserve[from];
            in[to] = internal[from];
        }
        ops = o;
        attachments = a;
        buffers = b;
        exposures = e;
        fromReserve = r;
        internal = in;
        mask = m;
    }

    /** Adds the data range and queues the batch for posting at the end of the turn (or now, when it is full). */
    void commit(int i, Operation op, Buffer buffer, int offset, int length) {
        boolean in = op.mayInline() && length <= maxInline;
        inline[i] = in;
        if (op == Operation.SEND && length > 0 && internal[at(head)] == 0) {
            rideable = i;
        }
        batch.single(i, buffer.address() + offset, length, buffer.lkey()).flags(i, in ? SendFlags.INLINE : 0);
        queued();
    }

    private void queued() {
        head++;
        pending++;
        if (userOutstanding() >= userCapacity && writable) {
            writable = false;
            owner.writabilityChanged(false);
        }
        if (pending == batch.capacity()) {
            flush();
        } else {
            requestFlush();
        }
    }

    /** Makes sure this queue is flushed at the end of the loop's turn, even if nothing is queued yet. */
    void requestFlush() {
        if (!flushQueued) {
            flushQueued = true;
            loop.requestFlush(this);
        }
    }

    @Override
    public void flush() {
        boolean room = pending < batch.capacity();
        if (room) {
            owner.flushing(); // before flushQueued is cleared: what it queues joins this post, asking no second flush
        }
        flushQueued = false;
        if (!room) {
            requestFlush(); // a full batch leaves first; what the owner queues last goes in this turn's next post
        }
        int n = pending;
        rideable = -1;
        if (n == 0) {
            return;
        }
        pending = 0;
        batch.flags(n - 1, batch.flags(n - 1) | SendFlags.SIGNALED);
        int posted = n;
        RdmaException error = null;
        try {
            qp.postSend(batch, n);
        } catch (PostException e) {
            posted = e.failedIndex();
            error = e;
        } catch (RdmaException e) {
            posted = 0;
            error = e;
        } catch (IllegalStateException e) {
            posted = 0;
            error = new RdmaException("ibv_post_send", 0, e.getMessage(), e);
        }
        long first = head - n;
        for (int i = 0; i < posted; i++) {
            int k = at(first + i);
            if (inline[i] && buffers[k] != null) { // the data was copied into the WR: the buffer is free at once
                Buffer b = buffers[k];
                buffers[k] = null;
                b.reclaim();
                b.release();
            }
        }
        if (error != null) {
            // the newest slots never reached the QP: fail them now and give their slots back
            for (int i = posted; i < n; i++) {
                finish(at(first + i), error);
            }
            head = first + posted;
            owner.postFailed(error);
        }
    }

    /**
     * A completion of {@code slot}: retires every slot up to it, in order. Earlier slots completed successfully
     * (they were unsignaled, and an RC send queue completes in order; failed ones always report themselves).
     */
    void complete(int slot, int kind, WcStatus status, int vendorError) {
        long retired = head - pending;
        if (tail == retired) {
            LOG.debug("completion for send slot {} with nothing outstanding", slot);
            return;
        }
        long seq = tail + Math.floorMod(slot - (int) (tail % capacity), capacity);
        if (seq >= retired || ops[at(seq)] == null || ops[at(seq)].wrKind() != kind) {
            LOG.warn("completion for send slot {} (kind {}) does not match the send queue; dropped", slot, kind);
            return;
        }
        while (tail <= seq) {
            int k = at(tail);
            tail++;
            if (tail - 1 < seq || status == WcStatus.SUCCESS) {
                finish(k, null);
            } else {
                finish(k, new WorkCompletionException(ops[k], status, vendorError));
            }
        }
        if (!writable && userOutstanding() <= userCapacity / 2) {
            writable = true;
            owner.writabilityChanged(true);
        }
    }

    /** Teardown: everything still outstanding completes as flushed (the QP is already destroyed). */
    void failAll() {
        pending = 0;
        rideable = -1;
        while (tail < head) {
            int k = at(tail);
            tail++;
            finish(k, new WorkCompletionException(ops[k], WcStatus.WR_FLUSH_ERR, 0));
        }
    }

    /** Retires the operation at array index {@code k}. */
    private void finish(int k, RdmaException error) {
        Operation op = ops[k];
        Buffer b = buffers[k];
        long attachment = attachments[k];
        byte kind = internal[k];
        Exposure e = exposures != null ? exposures[k] : null;
        ops[k] = null;
        buffers[k] = null;
        internal[k] = 0;
        if (e != null) {
            exposures[k] = null;
        }
        if (fromReserve[k]) {
            fromReserve[k] = false;
            reserveInUse--;
        }
        if (kind == PROBE) {
            owner.probeDone(error);
            return;
        }
        if (kind == UPDATE) {
            owner.creditUpdateDone((int) attachment, error);
            return;
        }
        if (kind == RENDEZVOUS_DONE) {
            owner.fragmentDone(error); // a failed "done" fails the connection as a failed fragment does
            return;
        }
        if (kind == RENDEZVOUS_READ) {
            fragmentsInUse--;
            owner.rendezvousReadDone(error); // the buffer stays lent: the rendezvous hands it out whole
            return;
        }
        if (kind == FRAGMENT && e != null) {
            fragmentsInUse--;
            owner.exposureStep(op, e, error);
            return;
        }
        if (kind == FRAGMENT) {
            fragmentsInUse--;
            if (b != null) {
                b.reclaim();
                b.release();
            }
            owner.fragmentDone(error);
            return;
        }
        if (e != null) {
            owner.exposureStep(op, e, error);
            return;
        }
        if (b != null) {
            b.reclaim();
            if (op.consumesBuffer()) {
                b.release();
            }
        }
        if (error == null) {
            owner.completed(op, attachment);
        } else {
            owner.failed(op, attachment, error);
        }
    }
}
