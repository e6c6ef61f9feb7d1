package dev.ibex.cm.buffer;

/**
 * Who wants to know when the application releases a buffer it was handed (a connection that received into it
 * and re-posts a receive for each one released: that is how receive credits follow application demand).
 * Called on the pool's event loop thread.
 */
@FunctionalInterface
public interface BufferOwner {
    /**
     * The application released {@code buffer}; it is on its way back to the pool.
     *
     * @param buffer the buffer released, no longer the owner's to use
     */
    void released(Buffer buffer);
}
