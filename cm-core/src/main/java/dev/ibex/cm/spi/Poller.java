package dev.ibex.cm.spi;

/**
 * Waits for event sources of one fabric (the rdma-core provider: {@code epoll_wait} over the sources' file
 * descriptors plus an eventfd; the soft provider: a park/unpark signal). Each event loop owns one poller and is
 * the only thread calling {@link #poll}; {@link #wakeup()} may be called from any thread.
 */
public interface Poller extends AutoCloseable {

    /** Receives the attachment of each ready source; must not block. */
    @FunctionalInterface
    interface ReadyHandler {
        /**
         * A source is ready; drain it without blocking.
         *
         * @param attachment what the source was registered with
         */
        void ready(Object attachment);
    }

    /**
     * Adds a source; {@code attachment} is handed back when it is ready. A source belongs to one poller.
     *
     * @param source a source of this poller's fabric
     * @param attachment what {@link ReadyHandler#ready} receives for it
     */
    void register(EventSource source, Object attachment);

    /**
     * Removes a source (no-op when absent). Must be called before the source is closed.
     *
     * @param source the source
     */
    void deregister(EventSource source);

    /**
     * Waits until a source is ready, {@link #wakeup()} is called or the timeout passes, then reports every ready
     * source. Allocates nothing.
     *
     * @param timeoutNanos 0 to return at once, negative to wait without limit
     * @param handler told of each ready source, on the calling thread
     * @return the number of ready sources reported (0 on timeout or wake-up)
     */
    int poll(long timeoutNanos, ReadyHandler handler);

    /** Makes a current or the next {@link #poll} return promptly. Thread-safe, cheap when repeated. */
    void wakeup();

    @Override
    void close();
}
