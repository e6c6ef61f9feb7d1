package dev.ibex.cm.reactive;

import java.lang.foreign.MemorySegment;

/**
 * A {@code send} item that writes its own bytes into the registered buffer it goes out of: framing (a header in
 * front of a payload) without assembling an intermediate array first. Ibex calls {@link #writeTo} once, on the
 * endpoint's event loop, when the item is posted — so what it writes (a sequence number, say) follows the order in
 * which items reach the wire.
 */
@FunctionalInterface
public interface PayloadWriter {
    /**
     * Writes the payload at the start of {@code buffer} (a registered buffer of the endpoint's pool) and returns its
     * length. Must not block nor keep {@code buffer}; a runtime exception fails the send that carried the item.
     *
     * @return how many bytes were written, at most {@code buffer.byteSize()}
     */
    int writeTo(MemorySegment buffer);
}
