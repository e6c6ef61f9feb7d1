package dev.ibex.softroce.net;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fixed set of equal direct buffers carved from one allocation. Receive threads take, any thread gives
 * back; neither allocates. When every buffer is retained by handlers, takers wait — like a NIC without
 * receive descriptors — and the socket buffer absorbs (then drops) what arrives meanwhile.
 */
final class BufferPool {
    private final ArrayBlockingQueue<PacketBuffer> free;
    private final int bufferSize;

    BufferPool(int count, int bufferSize) {
        this.free = new ArrayBlockingQueue<>(count);
        this.bufferSize = bufferSize;
        ByteBuffer block = ByteBuffer.allocateDirect(Math.multiplyExact(count, bufferSize));
        for (int i = 0; i < count; i++) {
            free.add(new PacketBuffer(block.slice(i * bufferSize, bufferSize), this));
        }
    }

    /** A free buffer, or {@code null} after {@code timeoutMillis} without one. */
    PacketBuffer take(long timeoutMillis) throws InterruptedException {
        PacketBuffer b = free.poll();
        return b != null || timeoutMillis <= 0 ? b : free.poll(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** A free buffer, or {@code null} if none is free now. */
    PacketBuffer poll() {
        return free.poll();
    }

    void give(PacketBuffer buffer) {
        if (!free.offer(buffer)) {
            throw new IllegalStateException("buffer returned to a full pool");
        }
    }

    int available() {
        return free.size();
    }

    int bufferSize() {
        return bufferSize;
    }
}
