package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;

/** An endpoint a {@code send(Publisher)} posts to: a connection, or a datagram endpoint with a destination. */
interface SendTarget {

    EventLoop loop();

    Outbound outbound();

    /**
     * Posts {@code item} as one SEND (loop thread, into a reserved slot) and returns its payload length.
     *
     * @throws RuntimeException when the item cannot be sent (type, size, pool exhausted, endpoint closed); a
     *     {@link Message} item is released either way
     */
    int post(Object item, long attachment);

    /**
     * Whether the registered buffers {@code item} needs (one, or several for a message longer than a buffer) are free
     * for its post; when they are not, {@code whenFree} runs (once, on the loop) after a buffer comes back. An
     * exhausted pool is back-pressure for the stream, not its failure.
     */
    boolean bufferAvailable(Object item, Runnable whenFree);
}
