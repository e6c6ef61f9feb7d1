package dev.ibex.cm.reactive;

import java.util.Objects;

/**
 * A payload to send with 32 bits of immediate data ({@code IBV_WR_SEND_WITH_IMM}); the receiver sees
 * {@link Message#hasImmData()}. The payload is anything {@code send} accepts (byte[], ByteBuffer, MemorySegment,
 * CharSequence, Message).
 *
 * @param payload what to send: anything {@code send} accepts except another {@code WithImmediate}
 * @param immData the 32 bits the receiver reads from {@link Message#immData()}
 */
public record WithImmediate(Object payload, int immData) {
    /**
     * Checks the payload.
     *
     * @throws IllegalArgumentException when {@code payload} is itself a {@code WithImmediate}
     */
    public WithImmediate {
        Objects.requireNonNull(payload, "payload");
        if (payload instanceof WithImmediate) {
            throw new IllegalArgumentException("immediate data cannot be nested");
        }
    }
}
