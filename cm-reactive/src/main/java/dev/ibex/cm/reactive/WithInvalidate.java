package dev.ibex.cm.reactive;

import java.util.Objects;

/**
 * A payload to send that also ends an exposure the peer gave this side ({@code IBV_WR_SEND_WITH_INV} of the peer's
 * memory window {@code rkey}, e.g. {@code remote.rkey()} of the {@code RemoteBuffer} it sent): "done with your
 * buffer" in the same message, without a round trip. The peer sees {@link Message#hasInvalidatedRkey()} and its
 * {@link RdmaExposure} ends. The payload is anything {@code send} accepts.
 *
 * @param payload what to send: anything {@code send} accepts except a {@code WithInvalidate} or {@link WithImmediate}
 * @param rkey    the rkey of the peer's exposure to end (a memory window's; a region's rkey makes the send fail)
 */
public record WithInvalidate(Object payload, int rkey) {
    /**
     * Checks the payload.
     *
     * @throws IllegalArgumentException when {@code payload} is a {@code WithInvalidate} or a {@link WithImmediate}
     */
    public WithInvalidate {
        Objects.requireNonNull(payload, "payload");
        if (payload instanceof WithInvalidate || payload instanceof WithImmediate) {
            throw new IllegalArgumentException("a SEND carries either immediate data or an rkey to invalidate");
        }
    }
}
