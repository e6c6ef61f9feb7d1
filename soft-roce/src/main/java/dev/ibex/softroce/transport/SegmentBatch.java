package dev.ibex.softroce.transport;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Packets a requester builds end to end so that a run of them leaves in one {@link Link#sendSegments} call (UDP
 * segmentation offload: one system call for up to 64 datagrams). A run is packets of one size to one destination
 * through one link, the last of it possibly shorter; a packet that cannot join sends the run first. The packets are
 * built in place — no copy beyond the one from the registered memory that the wire forces.
 *
 * <p>One batch per thread, made on the thread's first send of a run and kept (about 68 KiB of direct memory).
 * A batch is taken for one {@link Requester#run} and {@link #release released}, sending what it holds, before
 * that returns; a run on a thread whose batch is taken (a nested call) builds and sends packet by packet.
 */
final class SegmentBatch {
    /** UDP payload bytes one run may hold (a UDP datagram's most, 65,507, less room for rounding). */
    static final int CAPACITY = 65_000;
    /** Datagrams one run may hold ({@code UDP_MAX_SEGMENTS} of Linux 4.18). */
    static final int MAX_SEGMENTS = 64;

    private static final ThreadLocal<SegmentBatch> PER_THREAD = ThreadLocal.withInitial(SegmentBatch::new);

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(CAPACITY + Sender.MAX_PACKET);
    private final MemorySegment segment = MemorySegment.ofBuffer(buffer);
    private boolean taken;
    private Link link;
    private int dstIp;
    private InetSocketAddress destination;
    private int segmentSize;
    private int count;
    private int used;
    /** The run's last packet was shorter than the others: nothing may follow it. */
    private boolean ended;

    private SegmentBatch() {
    }

    /** This thread's batch, or null when it is taken (the caller then sends packet by packet). */
    static SegmentBatch take() {
        SegmentBatch b = PER_THREAD.get();
        if (b.taken) {
            return null;
        }
        b.taken = true;
        return b;
    }

    /** Sends what the batch holds and gives it back. */
    void release() {
        try {
            flush();
        } finally {
            taken = false;
        }
    }

    /** The memory packets are built in. */
    MemorySegment segment() {
        return segment;
    }

    /**
     * Where a packet of {@code length} bytes for {@code dstIp} through {@code link} is to be built: after the
     * run's packets when it can join the run, else at the start once the run was sent. Call {@link #added} once it
     * is built.
     *
     * @param last whether the packet ends its message (or is an ACK): a shorter one may then end a run of one
     *
     * @return the packet's offset in {@link #segment()}
     */
    long offsetFor(Link link, int dstIp, InetSocketAddress destination, int length, boolean last) {
        if (count > 0 && (link != this.link || dstIp != this.dstIp || destination != this.destination
                || ended || length > segmentSize || count == MAX_SEGMENTS || used + length > CAPACITY
                || (count == 1 && length < segmentSize && !last))) {
            // a shorter packet after a single one starts a run of its own size unless it ends its message (a
            // WRITE's middle packets after its first, which carries a RETH) rather than ending a run of two
            flush();
        }
        if (count == 0) {
            this.link = link;
            this.dstIp = dstIp;
            this.destination = destination;
            this.segmentSize = length;
        }
        return used;
    }

    /** The packet {@link #offsetFor} placed is built: {@code length} bytes. */
    void added(int length) {
        if (count > 0 && length < segmentSize) {
            ended = true;
        }
        used += length;
        count++;
    }

    /** Sends the run now (nothing when empty). */
    void flush() {
        if (count == 0) {
            return;
        }
        buffer.limit(used).position(0);
        Link l = link;
        int size = segmentSize;
        int ip = dstIp;
        InetSocketAddress to = destination;
        count = 0;
        used = 0;
        ended = false;
        link = null;
        destination = null;
        if (buffer.remaining() == size) {
            l.send(buffer, ip, to);
        } else {
            l.sendSegments(buffer, size, ip, to);
        }
    }

    /** Packets waiting in the run (for tests). */
    int pending() {
        return count;
    }
}
