package dev.ibex.pubsub;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 24-byte header in front of every pub/sub datagram, big-endian, read and written in place in registered memory
 * (a flyweight: static accessors over a {@link MemorySegment}, nothing allocated):
 *
 * <pre>
 *  0      2      3      4             8                            16                           24
 *  +------+------+------+-------------+----------------------------+----------------------------+---------
 *  |magic |vers. | kind | topic id    | publisher epoch            | sequence number            | payload
 *  +------+------+------+-------------+----------------------------+----------------------------+---------
 * </pre>
 *
 * <ul>
 *   <li>{@code magic} {@value #MAGIC} ("IP": Ibex pub/sub) and {@code version} {@value #VERSION}: anything else on
 *       the group is not ours and is counted, not delivered.
 *   <li>{@code kind}: {@link FrameKind#DATA}, {@link FrameKind#HEARTBEAT} or {@link FrameKind#CLOSE}.
 *   <li>{@code topic id}: {@link Topic#id()}, so topics that share a group are told apart.
 *   <li>{@code epoch}: one publisher incarnation (its start time in ns since 1970, unique in the JVM); a new epoch
 *       is a restart.
 *   <li>{@code sequence}: DATA: this message's number (the first is 1); HEARTBEAT and CLOSE: the last number sent
 *       (0: none yet), so a subscriber learns of lost tail messages.
 * </ul>
 *
 * <p>HEARTBEAT and CLOSE carry 8 more bytes: the publisher's heartbeat interval in microseconds (u32, so a
 * subscriber knows when silence means "stopped") and the heartbeat's own number (u32, from 1, so lost heartbeats
 * are counted too).
 */
final class FrameHeader {
    static final int MAGIC = 0x4950;
    static final int VERSION = 1;

    static final long MAGIC_OFFSET = 0;
    static final long VERSION_OFFSET = 2;
    static final long KIND_OFFSET = 3;
    static final long TOPIC_OFFSET = 4;
    static final long EPOCH_OFFSET = 8;
    static final long SEQUENCE_OFFSET = 16;
    /** Header length: where a DATA frame's payload starts. */
    static final int LENGTH = 24;

    static final long INTERVAL_OFFSET = LENGTH;
    static final long HEARTBEAT_NUMBER_OFFSET = LENGTH + 4;
    /** Length of a HEARTBEAT or CLOSE frame. */
    static final int HEARTBEAT_LENGTH = LENGTH + 8;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private FrameHeader() {}

    static void write(MemorySegment s, FrameKind kind, int topic, long epoch, long sequence) {
        s.set(U16, MAGIC_OFFSET, (short) MAGIC);
        s.set(ValueLayout.JAVA_BYTE, VERSION_OFFSET, (byte) VERSION);
        s.set(ValueLayout.JAVA_BYTE, KIND_OFFSET, (byte) kind.code);
        s.set(U32, TOPIC_OFFSET, topic);
        s.set(U64, EPOCH_OFFSET, epoch);
        s.set(U64, SEQUENCE_OFFSET, sequence);
    }

    static void writeHeartbeat(MemorySegment s, int intervalMicros, int number) {
        s.set(U32, INTERVAL_OFFSET, intervalMicros);
        s.set(U32, HEARTBEAT_NUMBER_OFFSET, number);
    }

    /** The frame's kind, or {@code null} when {@code s} (of {@code length} bytes) is no frame of ours. */
    static FrameKind kind(MemorySegment s, int length) {
        if (length < LENGTH || (s.get(U16, MAGIC_OFFSET) & 0xFFFF) != MAGIC
                || s.get(ValueLayout.JAVA_BYTE, VERSION_OFFSET) != VERSION) {
            return null;
        }
        FrameKind k = FrameKind.of(s.get(ValueLayout.JAVA_BYTE, KIND_OFFSET));
        if (k != null && k != FrameKind.DATA && length < HEARTBEAT_LENGTH) {
            return null;
        }
        return k;
    }

    static int topic(MemorySegment s) {
        return s.get(U32, TOPIC_OFFSET);
    }

    static long epoch(MemorySegment s) {
        return s.get(U64, EPOCH_OFFSET);
    }

    static long sequence(MemorySegment s) {
        return s.get(U64, SEQUENCE_OFFSET);
    }

    static int intervalMicros(MemorySegment s) {
        return s.get(U32, INTERVAL_OFFSET);
    }

    static long heartbeatNumber(MemorySegment s) {
        return s.get(U32, HEARTBEAT_NUMBER_OFFSET) & 0xFFFF_FFFFL;
    }
}
