package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.verbs.ffi.CompletionQueues;
import dev.ibex.verbs.ffi.struct.IbvCq;
import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_cq}, whose {@code cq_context} is this object's handle.
 *
 * <p>Notification accounting: every event {@link NativeCompletionChannel#poll()} returns for this CQ is counted,
 * {@link #ackEvents} acknowledges them in batches ({@code ibv_ack_cq_events} takes a mutex), and
 * {@link #close()} acknowledges whatever is left before {@code ibv_destroy_cq}, which would otherwise wait
 * forever. Acknowledging more than was received would make the destroy wait forever too, so it is refused.
 * An event that arrives while the CQ is closing is acknowledged on the spot.
 */
final class NativeCompletionQueue extends NativeResource implements CompletionQueue {
    private final NativeDeviceContext device;
    private final NativeCompletionChannel channel;
    private final long handle;
    private final MemorySegment cq;
    private final int capacity;
    /** rxe reports a receive's invalidation with the kernel's flag value: see {@link #poll}. */
    private final boolean kernelInvalidateFlag;
    private volatile Object context;
    private long received;
    private long acked;

    NativeCompletionQueue(NativeDeviceContext device, int minEntries, NativeCompletionChannel channel, int vector) {
        super(device.fabric);
        this.device = device;
        this.channel = channel;
        this.handle = fabric.handles().register(this);
        try {
            this.cq = CompletionQueues.createCq(device.segment(), minEntries, MemorySegment.ofAddress(handle),
                    channel == null ? MemorySegment.NULL : channel.segment(), vector);
        } catch (RuntimeException e) {
            fabric.handles().release(handle);
            throw e;
        }
        this.capacity = IbvCq.cqe(cq);
        this.kernelInvalidateFlag = device.isRxe();
        tracked();
    }

    @Override
    NativeDeviceContext owner() {
        return device;
    }

    NativeDeviceContext device() {
        return device;
    }

    MemorySegment segment() {
        return cq;
    }

    /** Counts an event taken from the channel; false (and acknowledged at once) when the CQ is closing. */
    synchronized boolean eventReceived() {
        if (!isOpen()) {
            CompletionQueues.ackCqEvents(cq, 1);
            return false;
        }
        received++;
        return true;
    }

    @Override
    String describe() {
        return "CQ of " + capacity + " entries";
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

    /**
     * Polls into {@code batch}. On rxe a receive that carried SEND_WITH_INV reports the kernel's
     * {@code IB_WC_WITH_INVALIDATE} (bit 2, which user space reads as {@code IBV_WC_IP_CSUM_OK}) instead of
     * {@code IBV_WC_WITH_INV} (bit 3): rxe writes the kernel's flags into the CQ it shares with user space, and its
     * user-space provider copies them as they are. Such completions are corrected here (rxe never reports a checksum
     * flag), so a peer's invalidation of an exposure is seen (MemoryWindowConformance in the VM).
     */
    @Override
    public int poll(CompletionBatch batch) {
        int n = pollRaw(batch);
        if (kernelInvalidateFlag) {
            for (int i = 0; i < n; i++) {
                int flags = batch.flags(i);
                if ((flags & KERNEL_WITH_INVALIDATE) != 0 && batch.isSuccess(i) && WcOpcode.isReceive(batch.opcode(i))) {
                    batch.setFlags(i, (flags & ~KERNEL_WITH_INVALIDATE) | WcFlags.WITH_INV);
                }
            }
        }
        return n;
    }

    /** {@code IB_WC_WITH_INVALIDATE} of the kernel's {@code enum ib_wc_flags}. */
    private static final int KERNEL_WITH_INVALIDATE = 1 << 2;

    private int pollRaw(CompletionBatch batch) {
        ensureOpen();
        return BatchPosting.poll(device.ops(), cq, batch);
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        ensureOpen();
        BatchPosting.requestNotify(device.ops(), cq, solicitedOnly);
    }

    @Override
    public synchronized void ackEvents(int count) {
        ensureOpen();
        long outstanding = received - acked;
        if (count < 0 || count > outstanding) {
            throw new IllegalArgumentException("cannot acknowledge " + count + " events: " + outstanding
                    + " are unacknowledged");
        }
        if (count > 0) {
            CompletionQueues.ackCqEvents(cq, count);
            acked += count;
        }
    }

    /** Events received and not yet acknowledged. */
    synchronized long unacknowledged() {
        return received - acked;
    }

    @Override
    void destroy() {
        synchronized (this) {
            long rest = received - acked;
            if (rest > 0) {
                CompletionQueues.ackCqEvents(cq, (int) rest);
                acked += rest;
            }
        }
        CompletionQueues.destroyCq(cq);
        fabric.handles().release(handle);
    }
}
