package dev.ibex.cm.reactive;

import java.util.Objects;

/**
 * A payload to send with 32 bits of immediate data ({@code IBV_WR_SEND_WITH_IMM}); the receiver sees
 * {@link Message#hasImmData()}. The payload is anything {@code send} accepts (byte[], ByteBuffer, MemorySegment,
 * CharSequence, Message).
 */
public record WithImmediate(Object payload, int immData) {
    public WithImmediate {
        Objects.requireNonNull(payload, "payload");
        if (payload instanceof WithImmediate) {
            throw new IllegalArgumentException("immediate data cannot be nested");
        }
    }
}
