package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * What {@code send} accepts and how it lands in registered memory: {@code byte[]}, {@link ByteBuffer} (its
 * remaining bytes; the position is left alone), {@link MemorySegment}, {@link CharSequence} (UTF-8),
 * {@link Message} (copied, then released: sending consumes it), {@link ReleasablePayload} (copies itself, then
 * released) and {@link WithImmediate} or {@link WithInvalidate} around any of those.
 * Every payload is copied once into a buffer of the endpoint's pool, the registered memory the NIC reads.
 */
final class Payloads {
    private Payloads() {}

    /** The payload inside {@link WithImmediate} or {@link WithInvalidate}, or the item itself. */
    static Object unwrap(Object item) {
        return item instanceof WithImmediate w ? w.payload() : item instanceof WithInvalidate v ? v.payload() : item;
    }

    /**
     * Copies {@code item}'s payload to the start of {@code into} and returns its length; releases a {@link Message}.
     *
     * @throws IllegalArgumentException for an unsupported type or a payload larger than the buffer
     */
    static int copy(Object item, Buffer into) {
        Object p = unwrap(item);
        MemorySegment dst = into.segment();
        if (p instanceof Message m) {
            try {
                MemorySegment src = m.payload();
                check(src.byteSize(), dst);
                MemorySegment.copy(src, 0, dst, 0, src.byteSize());
                return (int) src.byteSize();
            } finally {
                m.release();
            }
        }
        if (p instanceof ReleasablePayload r) {
            try {
                int len = r.length();
                check(len, dst);
                r.copyTo(dst.asSlice(0, len));
                return len;
            } finally {
                r.release();
            }
        }
        MemorySegment src = switch (p) {
            case byte[] a -> MemorySegment.ofArray(a);
            case ByteBuffer bb -> MemorySegment.ofBuffer(bb);
            case MemorySegment s -> s;
            case CharSequence cs -> MemorySegment.ofArray(cs.toString().getBytes(StandardCharsets.UTF_8));
            default -> throw new IllegalArgumentException("cannot send a " + p.getClass().getName()
                    + ": send byte[], ByteBuffer, MemorySegment, CharSequence, Message, ReleasablePayload, "
                    + "WithImmediate or WithInvalidate");
        };
        check(src.byteSize(), dst);
        MemorySegment.copy(src, 0, dst, 0, src.byteSize());
        return (int) src.byteSize();
    }

    /**
     * The payload's length in bytes, without consuming it ({@code -1} for an unsupported type, which {@link #copy}
     * then refuses). A {@link CharSequence} too long to fit one buffer for sure is measured by encoding it.
     */
    static long size(Object item, int bufferSize) {
        Object p = unwrap(item);
        return switch (p) {
            case Message m -> m.length();
            case ReleasablePayload r -> r.length();
            case byte[] a -> a.length;
            case ByteBuffer bb -> bb.remaining();
            case MemorySegment s -> s.byteSize();
            case CharSequence cs -> (long) cs.length() * 3 <= bufferSize ? cs.length()
                    : cs.toString().getBytes(StandardCharsets.UTF_8).length;
            default -> -1;
        };
    }

    /**
     * Copies {@code item}'s payload across the entries of {@code into} (buffers whose lengths add up to the payload's),
     * in order; releases a {@link Message} or {@link ReleasablePayload}. A payload that cannot be read in pieces (a
     * {@link ReleasablePayload}, a message of several buffers) is gathered into one heap array first.
     */
    static void copy(Object item, BufferList into) {
        Object p = unwrap(item);
        MemorySegment src;
        if (p instanceof Message m) {
            try {
                src = m.isComposite() ? MemorySegment.ofArray(m.toByteArray()) : m.payload();
                scatter(src, into);
            } finally {
                m.release();
            }
            return;
        }
        if (p instanceof ReleasablePayload r) {
            try {
                byte[] whole = new byte[r.length()];
                r.copyTo(MemorySegment.ofArray(whole));
                scatter(MemorySegment.ofArray(whole), into);
            } finally {
                r.release();
            }
            return;
        }
        src = switch (p) {
            case byte[] a -> MemorySegment.ofArray(a);
            case ByteBuffer bb -> MemorySegment.ofBuffer(bb);
            case MemorySegment s -> s;
            case CharSequence cs -> MemorySegment.ofArray(cs.toString().getBytes(StandardCharsets.UTF_8));
            default -> throw new IllegalArgumentException("cannot send a " + p.getClass().getName()
                    + ": send byte[], ByteBuffer, MemorySegment, CharSequence, Message, ReleasablePayload, "
                    + "WithImmediate or WithInvalidate");
        };
        scatter(src, into);
    }

    private static void scatter(MemorySegment src, BufferList into) {
        if (src.byteSize() != into.length()) {
            throw new IllegalStateException("a payload of " + src.byteSize() + " bytes changed its length (buffers for "
                    + into.length() + " were taken)");
        }
        long at = 0;
        for (int i = 0; i < into.count(); i++) {
            MemorySegment.copy(src, at, into.buffer(i).segment(), into.offset(i), into.length(i));
            at += into.length(i);
        }
    }

    private static void check(long size, MemorySegment dst) {
        if (size > dst.byteSize()) {
            throw new IllegalArgumentException("a payload of " + size + " bytes does not fit a " + dst.byteSize()
                    + "-byte registered buffer");
        }
    }

    /**
     * Releases a {@link Message} or {@link ReleasablePayload} (also inside {@link WithImmediate} or
     * {@link WithInvalidate}); ignores the rest.
     */
    static void release(Object item) {
        Object p = unwrap(item);
        if (p instanceof Message m) {
            m.release();
        } else if (p instanceof ReleasablePayload r) {
            r.release();
        }
    }

    /**
     * An item that will not be sent: a {@link Message} or {@link ReleasablePayload} is released, the rest goes to
     * the discard hook.
     */
    static void discard(Object item, Context context) {
        Object p = unwrap(item);
        if (p instanceof Message m) {
            m.release();
        } else if (p instanceof ReleasablePayload r) {
            r.release();
        } else {
            Operators.onDiscard(item, context);
        }
    }
}
