package dev.ibex.rsocket;

import dev.ibex.cm.reactive.ReleasablePayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * How RSocket frames travel as RDMA messages — the one class to swap for a large-message path.
 *
 * <p>An RDMA SEND keeps message boundaries, but a message is one registered pool buffer (8 KiB by default) while an
 * RSocket frame may be up to 16,777,215 bytes (the TCK sends ~470 KB frames without RSocket fragmentation). So each
 * frame starts a message with RSocket's own 24-bit big-endian frame length (the prefix RSocket puts on TCP), followed
 * by as many frame bytes as fit; a frame that does not fit continues in the next messages, which carry bare frame
 * bytes. A frame of up to {@code messageSize − 3} bytes — every frame of a request/response workload — is exactly
 * one message. The length tells the receiver how large the frame will be (it allocates it once) and when it ends,
 * and lets it reject a malformed stream with a {@link FramingException} instead of handing RSocket a torn frame.
 * Frames never interleave: the sender finishes a split frame before it starts the next.
 *
 * <p>{@code messageSize} is the smaller of the two sides' receive buffers, learnt in the {@link Handshake}.
 *
 * <p><b>Threading.</b> Immutable; a {@link Chunk} is written on the sender's loop and released on any thread; an
 * {@link Assembler} is confined to the receiving connection's loop.
 */
final class MessageFraming {
    /** The frame-length prefix at the start of each frame's first message. */
    static final int HEADER = 3;
    /** RSocket's largest frame (a 24-bit length). */
    static final int MAX_FRAME = 0xFF_FFFF;

    private final int messageSize;

    /** @param messageSize the largest message the peer can receive (at least {@value #HEADER} + 1 bytes) */
    MessageFraming(int messageSize) {
        if (messageSize <= HEADER) {
            throw new IllegalArgumentException("a message must hold more than the " + HEADER + "-byte header, got "
                    + messageSize);
        }
        this.messageSize = messageSize;
    }

    int messageSize() {
        return messageSize;
    }

    /** How many messages carry a frame of {@code frameLength} bytes. */
    int messagesFor(int frameLength) {
        int first = messageSize - HEADER;
        if (frameLength <= first) {
            return 1;
        }
        return 1 + (frameLength - first + messageSize - 1) / messageSize;
    }

    /**
     * Message {@code index} (0-based) of {@code frame}'s {@link #messagesFor} messages. The chunk owns one reference
     * of {@code frame} and gives it back when released (the caller retains the frame once per extra message).
     */
    Chunk chunk(ByteBuf frame, int index) {
        int frameLength = frame.readableBytes();
        int firstBody = messageSize - HEADER;
        if (index == 0) {
            return new Chunk(frame, 0, Math.min(frameLength, firstBody), true);
        }
        int from = firstBody + (index - 1) * messageSize;
        return new Chunk(frame, from, Math.min(frameLength - from, messageSize), false);
    }

    /** One message of a frame: writes itself into the registered send buffer, then releases its frame reference. */
    static final class Chunk implements ReleasablePayload {
        private final ByteBuf frame;
        private final int from;
        private final int length;
        private final boolean first;

        Chunk(ByteBuf frame, int from, int length, boolean first) {
            this.frame = frame;
            this.from = from;
            this.length = length;
            this.first = first;
        }

        @Override
        public int length() {
            return first ? HEADER + length : length;
        }

        @Override
        public void copyTo(MemorySegment target) {
            int at = 0;
            if (first) {
                int frameLength = frame.readableBytes();
                target.set(ValueLayout.JAVA_BYTE, 0, (byte) (frameLength >>> 16));
                target.set(ValueLayout.JAVA_BYTE, 1, (byte) (frameLength >>> 8));
                target.set(ValueLayout.JAVA_BYTE, 2, (byte) frameLength);
                at = HEADER;
            }
            // getBytes into a ByteBuffer walks a CompositeByteBuf's components: one copy, straight into the buffer
            frame.getBytes(frame.readerIndex() + from, target.asSlice(at, length).asByteBuffer());
        }

        @Override
        public void release() {
            frame.release();
        }

        @Override
        public String toString() {
            return "Chunk[" + (first ? "first, " : "") + from + "+" + length + " of " + frame.readableBytes() + "]";
        }
    }

    /** Rebuilds frames from received messages, into buffers of the connection's allocator. Loop-confined. */
    static final class Assembler {
        private final ByteBufAllocator alloc;
        private ByteBuf partial;
        private int remaining;

        Assembler(ByteBufAllocator alloc) {
            this.alloc = alloc;
        }

        /**
         * Takes one message; returns the frame it completes (the caller owns it) or {@code null} when the frame
         * continues in later messages.
         *
         * @throws FramingException when the message cannot be part of a well-formed frame (what was assembled so far
         *     is released)
         */
        ByteBuf accept(MemorySegment message) {
            long size = message.byteSize();
            if (partial == null) {
                if (size < HEADER + 1) {
                    throw new FramingException("a message of " + size + " bytes cannot start a frame (a "
                            + HEADER + "-byte length and at least one frame byte)");
                }
                int frameLength = (message.get(ValueLayout.JAVA_BYTE, 0) & 0xFF) << 16
                        | (message.get(ValueLayout.JAVA_BYTE, 1) & 0xFF) << 8
                        | message.get(ValueLayout.JAVA_BYTE, 2) & 0xFF;
                int body = (int) size - HEADER;
                if (body > frameLength) {
                    throw new FramingException("a message carries " + body + " frame bytes but announces a frame of "
                            + frameLength);
                }
                ByteBuf frame = alloc.buffer(frameLength, frameLength);
                write(frame, message, HEADER, body);
                if (body == frameLength) {
                    return frame;
                }
                partial = frame;
                remaining = frameLength - body;
                return null;
            }
            if (size == 0 || size > remaining) {
                int expected = remaining;
                release();
                throw new FramingException("a continuation of " + size + " bytes where " + expected
                        + " bytes of the frame were still expected");
            }
            write(partial, message, 0, (int) size);
            remaining -= (int) size;
            if (remaining > 0) {
                return null;
            }
            ByteBuf frame = partial;
            partial = null;
            return frame;
        }

        /** Whether a frame is half assembled. */
        boolean inProgress() {
            return partial != null;
        }

        /** Drops a half-assembled frame (the connection ended). */
        void release() {
            ByteBuf p = partial;
            partial = null;
            if (p != null) {
                p.release();
            }
        }

        private static void write(ByteBuf into, MemorySegment from, long offset, int length) {
            if (length == 0) {
                return;
            }
            into.writeBytes(from.asSlice(offset, length).asByteBuffer());
        }
    }
}
