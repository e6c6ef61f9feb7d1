package dev.ibex.verbs.provider;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The native scratch of QPs and SRQs (a bad-WR slot, the {@code ibv_qp_ex} data buffers, a {@code WrBatch}),
 * recycled through the fabric instead of each object owning an {@code Arena.ofShared()}: closing a shared arena is a
 * handshake with every thread of the JVM, which in the TCG guest cost ~1.6 ms per QP destroyed (JFR: one
 * HandshakeAllThreads per QP, docs/benchmarks.md "Connection setup step by step"). Blocks come from the fabric's
 * shared arena, are zeroed when leased again and go back to a free list per size and alignment on
 * {@link Lease#close}; the pool never holds more than the peak of live leases, and all of it is freed with the
 * fabric. Thread-safe (the pool's monitor, uncontended in practice).
 */
final class ScratchPool {
    private final Arena arena;
    private final Map<Long, ArrayDeque<MemorySegment>> free = new HashMap<>();
    private int blocks;

    /** A pool allocating from {@code arena}, which outlives every lease. */
    ScratchPool(Arena arena) {
        this.arena = arena;
    }

    /** A new lease: an {@link Arena} whose memory goes back to this pool when it is closed. */
    Lease lease() {
        return new Lease();
    }

    /** Blocks allocated from the fabric's arena so far (the peak of live scratch, not the number of leases). */
    synchronized int blocks() {
        return blocks;
    }

    private synchronized MemorySegment take(long size, long alignment) {
        ArrayDeque<MemorySegment> q = free.get(key(size, alignment));
        MemorySegment s = q == null ? null : q.poll();
        if (s == null) {
            blocks++;
            return arena.allocate(size, alignment);
        }
        return s.fill((byte) 0);
    }

    private static long key(long size, long alignment) {
        return size << 8 | Long.numberOfTrailingZeros(alignment);
    }

    /**
     * One object's scratch: allocation takes (zeroed) blocks from the pool, {@link #close} returns them all. Its
     * segments have the fabric arena's scope. Confined in use to its owner's synchronization, as the shared arena it
     * replaces was.
     */
    final class Lease implements Arena {
        private final List<MemorySegment> taken = new ArrayList<>(2);
        private final List<Long> alignments = new ArrayList<>(2);
        private boolean closed;

        private Lease() {
        }

        @Override
        public synchronized MemorySegment allocate(long byteSize, long byteAlignment) {
            if (closed) {
                throw new IllegalStateException("scratch already returned");
            }
            MemorySegment s = take(byteSize, byteAlignment);
            taken.add(s);
            alignments.add(byteAlignment);
            return s;
        }

        @Override
        public MemorySegment.Scope scope() {
            return arena.scope();
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            giveBack();
        }

        private void giveBack() {
            synchronized (ScratchPool.this) {
                for (int i = 0; i < taken.size(); i++) {
                    MemorySegment s = taken.get(i);
                    free.computeIfAbsent(key(s.byteSize(), alignments.get(i)), k -> new ArrayDeque<>()).push(s);
                }
            }
            taken.clear();
        }
    }
}
