package dev.ibex.cm.spi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code struct ibv_tmh} ({@code infiniband/tm_types.h}), the 16 bytes a tag-matching message starts with: the
 * operation, three reserved zero bytes, the sender's app context and the 64-bit tag, both big-endian. A reusable
 * flyweight over native or heap memory: {@link #wrap} checks the bytes and the accessors read them in place;
 * {@link #write} encodes. Confined to one thread per instance.
 *
 * <p>Message formats (rdma-core {@code Documentation/tag_matching.md}): eager {@code TMH | payload}, rendezvous
 * request {@code TMH | RVH | metadata} ({@link RendezvousHeader}), rendezvous completion {@code TMH | RVH} with
 * {@link #FIN}.
 */
public final class TagMatchingHeader {
    /** Bytes of the header. */
    public static final int SIZE = 16;
    /** Offset of {@code opcode} (one byte). */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of {@code app_ctx} (big-endian 32 bits). */
    public static final int APP_CTX_OFFSET = 4;
    /** Offset of {@code tag} (big-endian 64 bits). */
    public static final int TAG_OFFSET = 8;
    /** {@code IBV_TMH_NO_TAG}: no tag; the receiver always treats the message as unexpected. */
    public static final int NO_TAG = 0;
    /** {@code IBV_TMH_RNDV}: a rendezvous request; an {@code ibv_rvh} follows. */
    public static final int RNDV = 1;
    /** {@code IBV_TMH_FIN}: the receiver finished reading a rendezvous payload; the sender may free it. */
    public static final int FIN = 2;
    /** {@code IBV_TMH_EAGER}: an eager tagged message; the payload follows. */
    public static final int EAGER = 3;

    static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight. */
    public TagMatchingHeader() {}

    /**
     * Points this flyweight at the header at {@code offset}, checking it.
     *
     * @param segment the memory holding the message
     * @param offset where the header starts
     * @param length how many bytes of the message are available from {@code offset}
     * @return this flyweight
     * @throws TmHeaderException when fewer than {@link #SIZE} bytes are available, the range lies outside
     *     {@code segment}, the operation is unknown or a reserved byte is not zero
     */
    public TagMatchingHeader wrap(MemorySegment segment, long offset, long length) {
        String why = problem(segment, offset, length);
        if (why != null) {
            throw new TmHeaderException(why);
        }
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * Like {@link #wrap} but reports a bad header by its result, for receive paths that must not allocate.
     *
     * @param segment the memory holding the message
     * @param offset where the header starts
     * @param length how many bytes of the message are available from {@code offset}
     * @return whether the bytes are a valid header (the flyweight is unchanged when not)
     */
    public boolean tryWrap(MemorySegment segment, long offset, long length) {
        if (check(segment, offset, length) != VALID) {
            return false;
        }
        this.segment = segment;
        this.offset = offset;
        return true;
    }

    private static final int VALID = 0;
    private static final int OUTSIDE = 1;
    private static final int SHORT = 2;
    private static final int UNKNOWN_OP = 3;
    private static final int RESERVED = 4;

    /** The check without a message, so a receive path that meets bad bytes allocates nothing. */
    private static int check(MemorySegment segment, long offset, long length) {
        if (offset < 0 || length < 0 || offset > segment.byteSize() || length > segment.byteSize() - offset) {
            return OUTSIDE;
        }
        if (length < SIZE) {
            return SHORT;
        }
        if (Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset + OPCODE_OFFSET)) > EAGER) {
            return UNKNOWN_OP;
        }
        for (int i = 1; i < APP_CTX_OFFSET; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != 0) {
                return RESERVED;
            }
        }
        return VALID;
    }

    private static String problem(MemorySegment segment, long offset, long length) {
        return switch (check(segment, offset, length)) {
            case OUTSIDE -> "the range " + offset + "+" + length + " lies outside the " + segment.byteSize()
                    + " bytes given";
            case SHORT -> "a tag-matching header needs " + SIZE + " bytes, got " + length;
            case UNKNOWN_OP -> "unknown tag-matching operation "
                    + Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset + OPCODE_OFFSET))
                    + " (NO_TAG 0, RNDV 1, FIN 2, EAGER 3)";
            case RESERVED -> "a reserved byte of the tag-matching header is not zero";
            default -> null;
        };
    }

    /** {@return the operation: {@link #NO_TAG}, {@link #RNDV}, {@link #FIN} or {@link #EAGER}} */
    public int opcode() {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset + OPCODE_OFFSET));
    }

    /** {@return the sender's opaque app context ({@code app_ctx}), host order} */
    public int appCtx() {
        return segment.get(INT_BE, offset + APP_CTX_OFFSET);
    }

    /** {@return the tag, host order} */
    public long tag() {
        return segment.get(LONG_BE, offset + TAG_OFFSET);
    }

    /**
     * Encodes a header at {@code offset} of {@code segment}.
     *
     * @param segment where to write
     * @param offset where the header starts; {@link #SIZE} bytes must fit
     * @param opcode {@link #NO_TAG}, {@link #RNDV}, {@link #FIN} or {@link #EAGER}
     * @param appCtx the opaque app context the receiver's completion reports
     * @param tag the tag
     * @throws TmHeaderException for an unknown operation or a range outside {@code segment}
     */
    public static void write(MemorySegment segment, long offset, int opcode, int appCtx, long tag) {
        if (opcode < NO_TAG || opcode > EAGER) {
            throw new TmHeaderException("unknown tag-matching operation " + opcode + " (NO_TAG 0, RNDV 1, FIN 2, EAGER 3)");
        }
        if (offset < 0 || offset > segment.byteSize() - SIZE) {
            throw new TmHeaderException("a tag-matching header at " + offset + " does not fit in "
                    + segment.byteSize() + " bytes");
        }
        segment.set(ValueLayout.JAVA_INT_UNALIGNED, offset, 0);
        segment.set(ValueLayout.JAVA_BYTE, offset + OPCODE_OFFSET, (byte) opcode);
        segment.set(INT_BE, offset + APP_CTX_OFFSET, appCtx);
        segment.set(LONG_BE, offset + TAG_OFFSET, tag);
    }
}
