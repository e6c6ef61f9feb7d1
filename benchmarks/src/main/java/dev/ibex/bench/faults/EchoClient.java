package dev.ibex.bench.faults;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;

/**
 * A sequenced echo stream over RC SEND/RECV: each unit is a {@link Sequenced} message the {@link StreamServer} checks and
 * sends back, and the echo is checked here.
 *
 * <p>Threading: callbacks on the connection's loop; counters and outcomes are read from any thread.
 */
public final class EchoClient extends StreamClient {
    /** The {@link #kind()} of an echo stream. */
    public static final int KIND = 0;

    /**
     * @param stream the stream id (sent to the server as private data)
     * @param window messages in flight
     * @param max the largest message (at most the buffer size)
     * @param limit messages to send in all ({@link Long#MAX_VALUE}: until closed)
     */
    public EchoClient(int stream, int window, int max, long limit) {
        super(stream, window, max, limit);
    }

    @Override
    protected int kind() {
        return KIND;
    }

    @Override
    protected boolean post(Connection c, long seq) {
        Buffer b = c.tryAllocate();
        if (b == null) {
            return false;
        }
        c.send(b, Sequenced.write(b.segment(), 0, stream, seq, max), seq);
        return true;
    }

    @Override
    public void onMessage(Connection c, Buffer message) {
        long seq;
        try {
            seq = Sequenced.check(message.segment(), message.offset(), message.length(), stream, max);
        } finally {
            message.release();
        }
        verified(c, seq);
    }
}
