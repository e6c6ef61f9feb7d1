package dev.ibex.rsocket;

import dev.ibex.cm.reactive.Message;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What the two ends of an RSocket-over-Ibex connection tell each other before the first frame.
 *
 * <ul>
 *   <li><b>CM private data</b> (connect request and accept): the magic {@code "IBRS"} and the framing version.
 *       A server rejects a connect request without them with a consumer REJ (status 28) whose private data says
 *       why ({@link #rejection}), so a plain RDMA client — or an incompatible version — fails at connect with a
 *       typed {@code RdmaConnectException} instead of exchanging garbage; a client checks the accept the same way.
 *   <li><b>The hello</b>, each side's first message: the magic and the size of the receive buffers it posts. A
 *       message must fit the peer's receive buffer (on rdma-core a longer one fails the connection), and pool sizes
 *       are each process's choice, so each side splits frames at the smaller of the two ({@link MessageFraming}).
 *       The size cannot ride in the connect request: a client learns its event loop, and so its pool, only once
 *       connected.
 * </ul>
 *
 * <p><b>Threading.</b> Stateless.
 */
final class Handshake {
    static final int VERSION = 1;
    private static final byte[] MAGIC = "IBRS".getBytes(StandardCharsets.US_ASCII);
    /** Connect and accept private data. */
    private static final byte[] PRIVATE_DATA = {MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], VERSION};
    static final int HELLO_LENGTH = MAGIC.length + Integer.BYTES;

    private Handshake() {}

    /** The private data of a connect request and of an accept. */
    static byte[] privateData() {
        return PRIVATE_DATA.clone();
    }

    /**
     * Why a connect request or accept with {@code data} is not from this transport, or {@code null} when it is
     * (the CM may pad private data with zeros: only the prefix counts).
     */
    static String rejection(byte[] data) {
        if (data == null || data.length < PRIVATE_DATA.length
                || !Arrays.equals(data, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return "not an RSocket-over-Ibex peer (no IBRS magic in the private data)";
        }
        if (data[MAGIC.length] != VERSION) {
            return "RSocket-over-Ibex framing version " + data[MAGIC.length] + " is not supported (this side: "
                    + VERSION + ")";
        }
        return null;
    }

    /** The reject private data for a {@link #rejection} reason (at most 148 bytes). */
    static byte[] rejectData(String reason) {
        byte[] b = ("rsocket-transport: " + reason).getBytes(StandardCharsets.US_ASCII);
        return b.length <= 148 ? b : Arrays.copyOf(b, 148);
    }

    /** This side's hello: the magic and the size of the receive buffers it posts. */
    static byte[] hello(int receiveBufferSize) {
        return ByteBuffer.allocate(HELLO_LENGTH).put(MAGIC).putInt(receiveBufferSize).array();
    }

    /**
     * The peer's receive buffer size from its hello.
     *
     * @throws FramingException when {@code m} is not a hello
     */
    static int peerReceiveBuffer(Message m) {
        MemorySegment p = m.payload();
        if (p.byteSize() != HELLO_LENGTH) {
            throw new FramingException("expected the peer's " + HELLO_LENGTH + "-byte hello, got a message of "
                    + p.byteSize() + " bytes");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (p.get(ValueLayout.JAVA_BYTE, i) != MAGIC[i]) {
                throw new FramingException("the peer's first message is not an RSocket-over-Ibex hello");
            }
        }
        int size = p.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), MAGIC.length);
        if (size <= MessageFraming.HEADER) {
            throw new FramingException("the peer announces receive buffers of " + size + " bytes");
        }
        return size;
    }
}
