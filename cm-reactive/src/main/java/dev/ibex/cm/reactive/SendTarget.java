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
}
