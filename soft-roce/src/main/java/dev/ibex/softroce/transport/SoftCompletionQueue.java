package dev.ibex.softroce.transport;

import static dev.ibex.cm.spi.VerbsAbi.*;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.WcOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code ibv_cq}: a ring of completions in {@code struct ibv_wc} layout, written by the NIC threads (many
 * producers: every QP on the CQ, send and receive side) and polled by the event loop (one consumer). Producers
 * claim slots lock-free (a bounded MPSC queue with per-slot sequence numbers); {@link #poll} copies whole slots into
 * the caller's {@link CompletionBatch}. Nothing is allocated per completion.
 *
 * <p>Overrun: a completion that finds the ring full puts the CQ in error, raises {@code CQ_ERR} once and moves every
 * QP using the CQ to ERR with {@code QP_FATAL}, as verbs describe; that completion and later ones are lost.
 *
 * <p>Notification: {@link #requestNotify} arms for one event; the first qualifying completion (any, or with
 * solicited-only arming a solicited or error completion) disarms and queues one event on the channel. The producer
 * (publish CQE, read arm state) and the consumer (arm, re-poll) use sequentially consistent accesses on both sides,
 * so a completion written while the consumer arms is either seen by its re-poll or notified, never neither.
 */
public final class SoftCompletionQueue implements CompletionQueue {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    /** A slot's sequence: coordinates (segment, byte offset); plain, acquire, release and volatile modes. */
    private static final VarHandle SEQUENCE = ValueLayout.JAVA_LONG.varHandle();
    private static final int DISARMED = 0;
    private static final int ARMED_SOLICITED = 1;
    private static final int ARMED_ANY = 2;

    private final SoftDevice device;
    private final SoftCompletionChannel channel;
    private final int capacity;
    private final int mask;
    private final MemorySegment ring;
    /** {@code ibv_wc_tm_info} per slot ({@link CompletionBatch#TM_INFO_SIZE} bytes), read for TM_RECV only. */
    private final MemorySegment tmRing;
    /**
     * Per slot, the ring position it is next free or full for (a long each, native like the ring): the CQs of a
     * loop are shared and sized for every work request their QPs may have outstanding, several KB of sequence per
     * connection end, which as a heap array every young collection during a burst of connection setups copied.
     */
    private final MemorySegment sequence;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicInteger armed = new AtomicInteger();
    /**
     * The QPs completing here (once each, also when both of a QP's CQs are this one): a concurrent set, as attach
     * and detach come once per QP created and destroyed and the set is read only on overrun and close; a
     * copy-on-write list copied all of a loop's QPs at each of them (Arrays.copyOf under attach in the connection
     * setup profile, issue 17).
     */
    private final Set<SoftQueuePair> queuePairs = ConcurrentHashMap.newKeySet();
    /** Tag-matching SRQs whose completions come here ({@code ibv_destroy_cq} is EBUSY while one is open). */
    private final AtomicInteger srqUsers = new AtomicInteger();
    /** Notifications queued on the channel and not yet taken by {@link SoftCompletionChannel#poll()}. */
    final AtomicInteger pendingEvents = new AtomicInteger();
    private long head; // consumer only
    private long eventsDelivered; // consumer only (channel poll and ack run on the loop)
    private long eventsAcked;
    private volatile boolean error;
    private volatile boolean closed;
    private volatile Object context;

    SoftCompletionQueue(SoftDevice device, int minEntries, SoftCompletionChannel channel) {
        this.device = device;
        this.channel = channel;
        int cap = Integer.highestOneBit(Math.max(1, minEntries - 1)) << 1;
        this.capacity = Math.max(cap, 1);
        this.mask = capacity - 1;
        // automatic: freed by the GC once the CQ is unreachable, so a late producer can never touch freed memory
        Arena memory = Arena.ofAuto();
        this.ring = memory.allocate((long) capacity * WC_SIZE, 8);
        this.tmRing = memory.allocate((long) capacity * CompletionBatch.TM_INFO_SIZE, 8);
        this.sequence = memory.allocate((long) capacity * Long.BYTES, Long.BYTES);
        for (int i = 0; i < capacity; i++) {
            sequence.setAtIndex(ValueLayout.JAVA_LONG, i, i);
        }
        VarHandle.releaseFence(); // the producers' and the consumer's first accesses see the initial positions
        if (channel != null) {
            channel.attach(this);
        }
        device.tracker().opened(this);
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object context) {
        this.context = context;
    }

    public SoftDevice device() {
        return device;
    }

    /** Whether the CQ overran. */
    public boolean inError() {
        return error;
    }

    @Override
    public int poll(CompletionBatch batch) {
        requireOpen();
        int max = batch.capacity();
        MemorySegment dst = batch.segment();
        int n = 0;
        long h = head;
        while (n < max) {
            int idx = (int) (h & mask);
            // volatile load: after requestNotify this is the consumer's re-check of the Dekker handshake (see complete)
            if ((long) SEQUENCE.getVolatile(sequence, (long) idx * Long.BYTES) != h + 1) {
                break;
            }
            MemorySegment.copy(ring, (long) idx * WC_SIZE, dst, (long) n * WC_SIZE, WC_SIZE);
            if (ring.get(ValueLayout.JAVA_INT, (long) idx * WC_SIZE + WC_OPCODE) == WcOpcode.TM_RECV) {
                MemorySegment.copy(tmRing, (long) idx * CompletionBatch.TM_INFO_SIZE, batch.tmInfoSegment(),
                        (long) n * CompletionBatch.TM_INFO_SIZE, CompletionBatch.TM_INFO_SIZE);
            }
            SEQUENCE.setRelease(sequence, (long) idx * Long.BYTES, h + capacity);
            h++;
            n++;
        }
        head = h;
        return n;
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        requireOpen();
        int want = solicitedOnly ? ARMED_SOLICITED : ARMED_ANY;
        // volatile CAS, then the caller's poll() re-checks the ring with a volatile load: no StoreLoad reordering
        for (;;) {
            int cur = armed.get();
            if (cur >= want || armed.compareAndSet(cur, want)) {
                return;
            }
        }
    }

    @Override
    public void ackEvents(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("cannot acknowledge a negative number of events: " + count);
        }
        synchronized (this) {
            if (eventsAcked + count > eventsDelivered) {
                throw new IllegalArgumentException("acknowledging " + count + " event(s) but only "
                        + (eventsDelivered - eventsAcked) + " were delivered and not yet acknowledged");
            }
            eventsAcked += count;
        }
    }

    synchronized void delivered() {
        eventsDelivered++;
    }

    /** Completion events delivered by the channel and not yet acknowledged. */
    public synchronized long unackedEvents() {
        return eventsDelivered - eventsAcked;
    }

    /** Completions waiting to be polled (approximate while producers run). */
    public int size() {
        return (int) Math.max(0, Math.min(capacity, tail.get() - head));
    }

    // ---- producer side (NIC threads) --------------------------------------------------------------------

    /**
     * Writes one completion. Immediate data is in host order; fields that do not apply are 0.
     *
     * @param solicited whether the completion is solicited (a SEND or WRITE_WITH_IMM carrying the SE bit)
     * @return {@code false} if the CQ is in error or overran (the completion is lost)
     */
    public boolean complete(long wrId, int status, int opcode, int byteLen, int qpNum, int flags, int imm,
            int srcQp, boolean solicited) {
        return publish(wrId, status, opcode, byteLen, qpNum, flags, imm, srcQp, solicited, 0L, 0);
    }

    /**
     * Writes one tag-matching receive completion ({@link WcOpcode#TM_RECV}) with its {@code ibv_wc_tm_info}.
     *
     * @return {@code false} if the CQ is in error or overran (the completion is lost)
     */
    boolean completeTm(long wrId, int status, int opcode, int byteLen, int qpNum, int flags, int imm, long tag,
            int priv, boolean solicited) {
        return publish(wrId, status, opcode, byteLen, qpNum, flags, imm, 0, solicited, tag, priv);
    }

    private boolean publish(long wrId, int status, int opcode, int byteLen, int qpNum, int flags, int imm,
            int srcQp, boolean solicited, long tag, int priv) {
        if (error || closed) {
            return false;
        }
        long t;
        int idx;
        for (;;) {
            t = tail.get();
            idx = (int) (t & mask);
            long dif = (long) SEQUENCE.getAcquire(sequence, (long) idx * Long.BYTES) - t;
            if (dif == 0) {
                if (tail.compareAndSet(t, t + 1)) {
                    break;
                }
            } else if (dif < 0) {
                overrun();
                return false;
            }
            Thread.onSpinWait();
        }
        long base = (long) idx * WC_SIZE;
        // zero the 48-byte slot with plain stores (a slice would allocate)
        for (int k = 0; k < WC_SIZE; k += 8) {
            ring.set(ValueLayout.JAVA_LONG, base + k, 0L);
        }
        ring.set(ValueLayout.JAVA_LONG, base + WC_WR_ID, wrId);
        ring.set(ValueLayout.JAVA_INT, base + WC_STATUS, status);
        ring.set(ValueLayout.JAVA_INT, base + WC_OPCODE, opcode);
        ring.set(ValueLayout.JAVA_INT, base + WC_BYTE_LEN, byteLen);
        ring.set(ValueLayout.JAVA_INT, base + WC_QP_NUM, qpNum);
        ring.set(ValueLayout.JAVA_INT, base + WC_WC_FLAGS, flags);
        ring.set(INT_BE, base + WC_IMM_DATA, imm);
        ring.set(ValueLayout.JAVA_INT, base + WC_SRC_QP, srcQp);
        if (opcode == WcOpcode.TM_RECV) {
            long tm = (long) idx * CompletionBatch.TM_INFO_SIZE;
            tmRing.set(ValueLayout.JAVA_LONG, tm, tag);
            tmRing.set(ValueLayout.JAVA_LONG, tm + 8, Integer.toUnsignedLong(priv));
        }
        // volatile store then volatile load (not release/plain): with the consumer's arm-then-recheck this is a
        // Dekker handshake, and a StoreLoad reordering here would lose the wake-up of a poller sleeping on the channel
        SEQUENCE.setVolatile(sequence, (long) idx * Long.BYTES, t + 1);
        int a = armed.get();
        if (a != DISARMED && (a == ARMED_ANY || solicited || status != 0) && armed.compareAndSet(a, DISARMED)
                && channel != null) {
            channel.notify(this);
        }
        return true;
    }

    /** Like {@link #complete} but stores {@code imm} unconverted (an invalidated rkey is host order). */
    public boolean completeWithInvalidate(long wrId, int byteLen, int qpNum, int flags, int rkey, int srcQp,
            boolean solicited) {
        int asStored = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(rkey) : rkey;
        return complete(wrId, 0, WcOpcode.RECV, byteLen, qpNum, flags, asStored, srcQp, solicited);
    }

    private void overrun() {
        synchronized (this) {
            if (error) {
                return;
            }
            error = true;
        }
        device.events().raise(AsyncEventType.CQ_ERR, this);
        for (SoftQueuePair qp : queuePairs) {
            qp.fatal();
        }
    }

    void attach(SoftQueuePair qp) {
        queuePairs.add(qp);
    }

    void detach(SoftQueuePair qp) {
        queuePairs.remove(qp);
    }

    /** A tag-matching SRQ reports here; {@code false} when the CQ is already closed. */
    synchronized boolean attachSrq() {
        if (closed) {
            return false;
        }
        srqUsers.incrementAndGet();
        return true;
    }

    void detachSrq() {
        srqUsers.decrementAndGet();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("completion queue is closed");
        }
    }

    /**
     * {@code ibv_destroy_cq}: fails with EBUSY while a QP uses the CQ; unacknowledged notifications are settled
     * (never waited for).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (!queuePairs.isEmpty()) {
                throw new RdmaException("ibv_destroy_cq", Errno.EBUSY,
                        queuePairs.size() + " QP(s) still use the completion queue: destroy them first");
            }
            if (srqUsers.get() > 0) {
                throw new RdmaException("ibv_destroy_cq", Errno.EBUSY, srqUsers.get()
                        + " tag-matching SRQ(s) still complete on the completion queue: destroy them first");
            }
            closed = true;
            eventsAcked = eventsDelivered;
        }
        if (channel != null) {
            channel.detach(this);
        }
        device.events().purge(this);
        device.tracker().closed(this);
    }
}
