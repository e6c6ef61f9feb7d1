package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.spi.WcStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Large messages by rendezvous, both ways on one connection, between two Ibex ends that both offered it
 * ({@link CreditOffer}, flag RENDEZVOUS) and for messages of at least {@link ConnectionOptions#rendezvousThreshold()}
 * bytes: the receiver READs the message from the sender's buffers instead of the sender SENDing it into the
 * receiver's shared receive queue.
 *
 * <ol>
 *   <li>Sender: exposes each buffer of the message READ-only, exactly its bytes ({@link Exposures#exposeForRendezvous},
 *       a BIND_MW from the fragment slots), then sends the descriptor as an eager message (several buffers when it is
 *       long) whose last part carries immediate data {@code 0xC7 << 24 | id}. The binds precede the descriptor on the
 *       send queue, which executes in order, so the keys work by the time the peer reads the descriptor.
 *   <li>Receiver: takes buffers of its own pool as they are free ({@link BufferPool#whenFree}: never SRQ buffers, so
 *       a large message cannot drain the shared receive queue), READs into them with at most the connection's
 *       initiator depth outstanding, delivers the message as one {@link BufferList} in order with the other messages
 *       (those that arrive meanwhile wait behind it), then answers "done": a zero-length SEND with immediate data
 *       {@code 0xC8 << 24 | id}, which needs no credit, like a credit update.
 *   <li>Sender, on "done": releases the buffers, which ends their exposures (LOCAL_INV); once every key is dead the
 *       message completes ({@code onComplete}, with the application's attachment).
 * </ol>
 *
 * Descriptor ({@value #HEADER} bytes, big-endian, then one 16-byte {@link RemoteBuffer} per buffer):
 * {@code id(4) flags(4: bit 0 = immediate data) imm(4) count(4) length(8) reserved(8)}. The descriptor takes one
 * credit (returned once the receiver has read it, not when the application releases the message: the receiver's
 * pool, not its SRQ, holds the message). A READ error or a lost peer fails the connection; at teardown each message
 * still going out fails as flushed (one {@code onFailed}), what was read so far goes back to the pool.
 * Loop-confined.
 */
final class Rendezvous {
    static final int DESCRIPTOR_TAG = 0xC7;
    static final int DONE_TAG = 0xC8;
    static final int HEADER = 32;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Connection c;
    /** Both ends offered it: descriptors are taken for what they are. */
    private boolean on;
    private int threshold;

    // ---- sending ----
    /** Messages going out or waiting for "done", oldest first; those still posting are at the tail. */
    private final ArrayDeque<Outgoing> outgoing = new ArrayDeque<>();
    /** Messages whose "done" came, waiting for their keys to die. */
    private final List<Outgoing> finishing = new ArrayList<>(2);
    private int nextId;

    // ---- receiving ----
    /** Rendezvous messages being read (the head) or waiting, and the eager messages that arrived behind them. */
    private final ArrayDeque<Object> inbound = new ArrayDeque<>();
    private int readsOutstanding;
    /** The last message read (its descriptor, for {@link #lastSources}). */
    private Incoming last;
    private boolean awaitingBuffer;
    private boolean awaitingDescriptor;
    private int nextExpectedId;
    /** "done" answers that found no reserved send slot: the ids from {@link #doneFirst}, in order. */
    private int donesOwed;
    private int doneFirst;
    private boolean closed;

    Rendezvous(Connection c) {
        this.c = c;
    }

    /** Set once established: whether both ends speak it, and from which size this end uses it. */
    void negotiate(boolean both, int threshold) {
        this.on = both && threshold > 0;
        this.threshold = threshold;
    }

    boolean isOn() {
        return on;
    }

    /** Whether a message of {@code length} bytes goes by rendezvous. */
    boolean takes(long length) {
        return on && length >= threshold;
    }

    static boolean isDone(int length, boolean withImm, int imm) {
        return length == 0 && withImm && imm >>> 24 == DONE_TAG;
    }

    // ---- sending ----

    /** One message going out by rendezvous. */
    private static final class Outgoing {
        final int id;
        final Buffer[] buffers;
        final int[] offsets;
        final int[] lengths;
        final boolean withImm;
        final int imm;
        final long attachment;
        final Buffer[] descriptor;
        final byte[] bytes;
        int exposed;
        int descriptorPosted;
        boolean posted;
        int ended;
        boolean answered;
        boolean finished;

        Outgoing(int id, BufferList m, boolean withImm, int imm, long attachment, Buffer[] descriptor) {
            this.id = id;
            int n = m.count();
            buffers = new Buffer[n];
            offsets = new int[n];
            lengths = new int[n];
            for (int k = 0; k < n; k++) {
                buffers[k] = m.buffer(k);
                offsets[k] = m.offset(k);
                lengths[k] = m.length(k);
            }
            this.withImm = withImm;
            this.imm = imm;
            this.attachment = attachment;
            this.descriptor = descriptor;
            this.bytes = new byte[HEADER + RemoteBuffer.BYTES * n];
            MemorySegment d = MemorySegment.ofArray(bytes);
            d.set(INT, 0, id);
            d.set(INT, 4, withImm ? 1 : 0);
            d.set(INT, 8, imm);
            d.set(INT, 12, n);
            d.set(LONG, 16, m.length());
        }

        Operation op() {
            return withImm ? Operation.SEND_WITH_IMM : Operation.SEND;
        }
    }

    /**
     * Takes {@code m} (credit and slot checked, buffers held by the caller) and queues it; the caller adds the
     * backlog entry whose turn {@link #advance} runs.
     */
    void send(BufferList m, boolean withImm, int imm, long attachment) {
        int size = HEADER + RemoteBuffer.BYTES * m.count();
        int bufferSize = c.pool().bufferSize();
        Buffer[] d = new Buffer[(size + bufferSize - 1) / bufferSize];
        outgoing.add(new Outgoing(nextId, m, withImm, imm, attachment, d));
        nextId = (nextId + 1) & 0xFF_FFFF;
    }

    /** Takes the descriptor's buffers; false when the pool is dry (the backlog is pumped again when one is free). */
    private boolean descriptorBuffers(Outgoing o) {
        BufferPool pool = c.pool();
        for (int p = 0; p < o.descriptor.length; p++) {
            if (o.descriptor[p] == null) {
                Buffer b = pool.tryAcquire();
                if (b == null) {
                    if (!awaitingDescriptor) {
                        awaitingDescriptor = true;
                        pool.whenFree(() -> {
                            awaitingDescriptor = false;
                            c.send.pumpBacklog();
                        });
                    }
                    return false;
                }
                o.descriptor[p] = b;
            }
        }
        return true;
    }

    /** The oldest message not yet fully posted. */
    private Outgoing posting() {
        for (Outgoing o : outgoing) {
            if (!o.posted) {
                return o;
            }
        }
        return null;
    }

    /**
     * Posts what it can of the oldest message not yet posted — binds, then the descriptor's parts — while fragment
     * slots are free; true once all of it is posted (its backlog entry is done).
     */
    boolean advance() {
        Outgoing o = posting();
        if (o == null) {
            return true; // (failed meanwhile)
        }
        if (o.exposed == 0 && !descriptorBuffers(o)) {
            return false; // (taken before any bind: a message waiting for them holds no window)
        }
        SendQueue sq = c.sq;
        Exposures exposures = c.exposures;
        while (o.exposed < o.buffers.length) {
            if (!sq.fragmentSlotFree()) {
                return false;
            }
            int k = o.exposed;
            Exposure e = exposures.exposeForRendezvous(o.buffers[k], o.offsets[k], o.lengths[k], o.id);
            e.remote().encode(o.bytes, HEADER + RemoteBuffer.BYTES * k);
            o.exposed++;
        }
        if (o.descriptorPosted == 0 && sq.fragmentSlotFree()) {
            int size = c.pool().bufferSize();
            for (int p = 0; p < o.descriptor.length; p++) {
                int n = Math.min(size, o.bytes.length - p * size);
                MemorySegment.copy(MemorySegment.ofArray(o.bytes), (long) p * size, o.descriptor[p].segment(), 0, n);
            }
        }
        int parts = o.descriptor.length;
        int size = c.pool().bufferSize();
        while (o.descriptorPosted < parts) {
            if (!sq.fragmentSlotFree()) {
                return false;
            }
            int p = o.descriptorPosted;
            boolean last = p == parts - 1;
            int imm = last ? DESCRIPTOR_TAG << 24 | o.id : p == 0 ? MessageFragments.firstImm(parts) : 0;
            Operation op = last || p == 0 ? Operation.SEND_WITH_IMM : Operation.SEND;
            int len = Math.min(size, o.bytes.length - p * size);
            int i = sq.begin(op, o.descriptor[p], 0, false, true);
            if (op == Operation.SEND_WITH_IMM) {
                sq.batch().immData(i, imm);
            }
            sq.commit(i, op, o.descriptor[p], 0, len);
            o.descriptorPosted++;
        }
        o.posted = true;
        return true;
    }

    /** The peer's "done" for {@code id}: let the buffers go; the message completes when their keys are dead. */
    void done(int id) {
        Outgoing o = outgoing.peekFirst();
        if (o == null || !o.posted || o.id != id) {
            c.receive.protocolError("a rendezvous \"done\" for message " + id + " that is not the oldest outstanding");
            return;
        }
        outgoing.poll();
        finishing.add(o);
        for (Buffer b : o.buffers) {
            b.release(); // ends its exposure (LOCAL_INV); it reaches the pool only after that
        }
        o.answered = true; // (exposures that ended at once, above, were counted)
        checkFinished(o);
    }

    /** An exposure made for a message ended (or its bind failed). */
    void exposureEnded(Exposure e) {
        for (int k = 0; k < finishing.size(); k++) {
            Outgoing o = finishing.get(k);
            if (o.id == (int) e.attachment) {
                o.ended++;
                checkFinished(o);
                return;
            }
        }
        for (Outgoing o : outgoing) {
            if (o.id == (int) e.attachment) {
                o.ended++;
                return;
            }
        }
    }

    private void checkFinished(Outgoing o) {
        if (o.answered && !o.finished && o.ended >= o.exposed) {
            o.finished = true;
            finishing.remove(o);
            c.events.completed(o.op(), o.attachment);
        }
    }

    /**
     * Teardown, after the send queue flushed: messages posted whole but never answered fail as flushed, oldest first,
     * and their buffers go back (their exposures end with the QP).
     */
    void failPosted() {
        while (!outgoing.isEmpty() && outgoing.peekFirst().posted) {
            fail(outgoing.poll());
        }
    }

    /** Teardown: the backlog reached the entry of the oldest message not fully posted; it fails as flushed. */
    void failNext() {
        Outgoing o = outgoing.poll();
        if (o == null) {
            return;
        }
        for (int p = o.descriptorPosted; p < o.descriptor.length; p++) {
            if (o.descriptor[p] != null) {
                o.descriptor[p].release(); // the posted ones went back with their work requests
            }
        }
        fail(o);
    }

    private void fail(Outgoing o) {
        for (Buffer b : o.buffers) {
            b.release();
        }
        c.events.failed(o.op(), o.attachment, new WorkCompletionException(o.op(), WcStatus.WR_FLUSH_ERR, 0));
    }

    // ---- receiving ----

    /** One message being read. */
    private static final class Incoming {
        final int id;
        final boolean withImm;
        final int imm;
        final long length;
        final long[] addresses;
        final int[] rkeys;
        final int[] lengths;
        final BufferList targets = new BufferList();
        /** Next remote buffer to read, and how far into it. */
        int segment;
        int segmentOffset;
        long posted;
        Buffer filling;
        int filled;

        Incoming(int id, boolean withImm, int imm, long length, int n) {
            this.id = id;
            this.withImm = withImm;
            this.imm = imm;
            this.length = length;
            addresses = new long[n];
            rkeys = new int[n];
            lengths = new int[n];
        }
    }

    /**
     * A message arrived (in order): a descriptor starts a rendezvous; an eager message waits behind one still being
     * read. False when the message is the application's to have now.
     */
    boolean inbound(Object m) {
        if (!on) {
            return false;
        }
        boolean descriptor = m instanceof Buffer b ? b.hasImmData() && b.immData() >>> 24 == DESCRIPTOR_TAG
                : ((BufferList) m).hasImmData() && ((BufferList) m).immData() >>> 24 == DESCRIPTOR_TAG;
        if (!descriptor) {
            if (inbound.isEmpty()) {
                return false;
            }
            inbound.add(m);
            return true;
        }
        byte[] d = m instanceof Buffer b ? b.segment().asSlice(b.offset(), b.length()).toArray(ValueLayout.JAVA_BYTE)
                : ((BufferList) m).toByteArray();
        int imm = m instanceof Buffer b ? b.immData() : ((BufferList) m).immData();
        ReceivePath.releaseMessage(m); // its credit goes back: the message itself will sit in this end's pool
        Incoming in = parse(d, imm);
        if (in == null) {
            return true;
        }
        inbound.add(in);
        if (inbound.size() == 1) {
            pump();
        }
        return true;
    }

    private Incoming parse(byte[] bytes, int imm) {
        MemorySegment d = MemorySegment.ofArray(bytes);
        if (bytes.length < HEADER) {
            c.receive.protocolError("a rendezvous descriptor of " + bytes.length + " B");
            return null;
        }
        int id = d.get(INT, 0);
        int n = d.get(INT, 12);
        long length = d.get(LONG, 16);
        if (id != (imm & 0xFF_FFFF) || id != nextExpectedId || n <= 0
                || (long) HEADER + (long) RemoteBuffer.BYTES * n != bytes.length
                || length <= 0 || length > c.options().maxMessageSize()) {
            c.receive.protocolError("a malformed rendezvous descriptor (message " + id + ", " + n + " buffers, "
                    + length + " B; this end takes at most " + c.options().maxMessageSize() + " B)");
            return null;
        }
        nextExpectedId = (nextExpectedId + 1) & 0xFF_FFFF;
        Incoming in = new Incoming(id, (d.get(INT, 4) & 1) != 0, d.get(INT, 8), length, n);
        long sum = 0;
        for (int k = 0; k < n; k++) {
            long at = HEADER + (long) RemoteBuffer.BYTES * k;
            in.addresses[k] = d.get(LONG, at);
            in.rkeys[k] = d.get(INT, at + 8);
            in.lengths[k] = d.get(INT, at + 12);
            sum += in.lengths[k];
        }
        if (sum != length) {
            c.receive.protocolError("a rendezvous descriptor whose buffers add up to " + sum + " B, not " + length);
            return null;
        }
        return in;
    }

    /** Whether reads wait for send-queue slots (the connection calls {@link #pump} as its sends complete). */
    boolean wantsSlots() {
        return !inbound.isEmpty() && inbound.peekFirst() instanceof Incoming in && in.posted < in.length
                && !awaitingBuffer;
    }

    /** Posts READs for the head message while buffers, slots and the initiator depth allow. */
    void pump() {
        if (closed || !c.acceptsRequests() || !(inbound.peekFirst() instanceof Incoming in)) {
            return;
        }
        SendQueue sq = c.sq;
        BufferPool pool = c.pool();
        int depth = c.send.readDepth();
        int size = pool.bufferSize();
        while (in.posted < in.length && readsOutstanding < depth && sq.fragmentSlotFree()) {
            if (in.filling == null) {
                Buffer b = pool.tryAcquire();
                if (b == null) {
                    if (!awaitingBuffer) {
                        awaitingBuffer = true;
                        pool.whenFree(this::bufferFree);
                    }
                    return;
                }
                b.lend(); // the hardware's until the message is whole (several READs may fill it)
                in.filling = b;
                in.filled = 0;
            }
            int len = Math.min(in.lengths[in.segment] - in.segmentOffset, size - in.filled);
            Buffer b = in.filling;
            int i = sq.beginRead(b);
            sq.batch().rdma(i, in.addresses[in.segment] + in.segmentOffset, in.rkeys[in.segment]);
            sq.commit(i, Operation.READ, b, in.filled, len);
            readsOutstanding++;
            in.posted += len;
            in.filled += len;
            in.segmentOffset += len;
            if (in.segmentOffset == in.lengths[in.segment]) {
                in.segment++;
                in.segmentOffset = 0;
            }
            if (in.filled == size || in.posted == in.length) {
                in.targets.add(b, 0, in.filled);
                in.filling = null;
            }
        }
    }

    private void bufferFree() {
        awaitingBuffer = false;
        pump();
    }

    /** A READ completed (they complete in order); the message is delivered once its last one has. */
    void readDone(RdmaException error) {
        readsOutstanding--;
        if (error != null || closed || !(inbound.peekFirst() instanceof Incoming in)) {
            return; // a failed READ fails the connection (the caller saw to it); teardown releases the buffers
        }
        if (in.posted < in.length || readsOutstanding > 0) {
            pump();
            return;
        }
        inbound.poll();
        last = in;
        BufferList m = in.targets;
        for (int k = 0; k < m.count(); k++) {
            c.receive.adoptRead(m.buffer(k), m.length(k));
        }
        m.immData(in.withImm, in.imm);
        answer(in.id);
        c.receive.deliverNow(m);
        while (!inbound.isEmpty() && !(inbound.peekFirst() instanceof Incoming)) {
            c.receive.deliverNow(inbound.poll());
        }
        pump();
    }

    private void answer(int id) {
        if (donesOwed > 0 || !c.sq.rendezvousDone(DONE_TAG << 24 | id)) {
            if (donesOwed++ == 0) {
                doneFirst = id;
            }
        }
    }

    /** Sends the "done" answers that found no slot (as the send queue drains). */
    void retryDones() {
        while (donesOwed > 0 && c.acceptsRequests() && c.sq.rendezvousDone(DONE_TAG << 24 | doneFirst)) {
            donesOwed--;
            doneFirst = (doneFirst + 1) & 0xFF_FFFF;
        }
    }

    boolean owesDones() {
        return donesOwed > 0;
    }

    /** Teardown, after the send queue flushed (no READ is outstanding): what was read goes back, and what waited. */
    void closeReceives() {
        closed = true;
        while (!inbound.isEmpty()) {
            Object m = inbound.poll();
            if (m instanceof Incoming in) {
                for (int k = 0; k < in.targets.count(); k++) {
                    Buffer b = in.targets.buffer(k);
                    b.reclaim();
                    b.release();
                }
                in.targets.clear();
                if (in.filling != null) {
                    in.filling.reclaim();
                    in.filling.release();
                    in.filling = null;
                }
            } else {
                ReceivePath.releaseMessage(m);
            }
        }
        donesOwed = 0;
    }

    /** Whether a message is being read (or waits to be). */
    boolean reading() {
        for (Object m : inbound) {
            if (m instanceof Incoming) {
                return true;
            }
        }
        return false;
    }

    List<RemoteBuffer> lastSources() {
        Incoming in = last;
        List<RemoteBuffer> out = new ArrayList<>();
        for (int k = 0; in != null && k < in.addresses.length; k++) {
            out.add(new RemoteBuffer(in.addresses[k], in.rkeys[k], in.lengths[k]));
        }
        return out;
    }

    /** Messages going out or being read (for tests and leak checks). */
    int inFlight() {
        return outgoing.size() + finishing.size() + inbound.size();
    }

    @Override
    public String toString() {
        return "Rendezvous[" + (on ? "on, threshold " + threshold : "off") + ", " + outgoing.size() + " out, "
                + finishing.size() + " finishing, " + inbound.size() + " in]";
    }
}
