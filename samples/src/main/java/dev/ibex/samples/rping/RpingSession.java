package dev.ibex.samples.rping;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.endpoint.WorkCompletionException;
import dev.ibex.samples.cli.SampleRun;
import java.util.function.IntConsumer;

/**
 * The server side of one rping connection: the client's source advertisement is answered with an RDMA READ of it
 * and a "go ahead", its sink advertisement with an RDMA WRITE of what was read (up to and including the NUL, as
 * the C server writes {@code strlen + 1} bytes) and a "go ahead". The "go ahead" is the C server's untouched
 * 16-byte {@code send_buf}: zeros. Runs until the client disconnects.
 */
final class RpingSession implements ConnectionHandler {
    private final SampleRun run;
    private final boolean verbose;
    private final IntConsumer closed;
    private boolean expectSource = true;
    private Buffer data;
    private int dataLength;
    private int status;

    /** @param closed told the session's exit status when it has closed */
    RpingSession(SampleRun run, boolean verbose, IntConsumer closed) {
        this.run = run;
        this.verbose = verbose;
        this.closed = closed;
    }

    @Override
    public void onMessage(Connection c, Buffer message) {
        int length = message.length();
        RemoteBuffer peer = length == RemoteBuffer.BYTES ? RemoteBuffer.decode(message.segment(), message.offset())
                : null;
        message.release();
        if (peer == null) {
            run.err().printf("Received bogus data, size %d%n", length);
            fail(c);
            return;
        }
        if (expectSource) {
            data = c.allocate();
            if (peer.length() > data.capacity()) {
                run.err().printf("client buffer of %d bytes exceeds this server's %d (use the same -S on both)%n",
                        peer.length(), data.capacity());
                fail(c);
                return;
            }
            dataLength = peer.length();
            c.read(data, 0, dataLength, peer, 0, 0);
        } else {
            if (data == null) {
                run.err().println("sink advertised before the source was read");
                fail(c);
                return;
            }
            int n = Math.min(PingData.strlen(data.segment(), dataLength) + 1, Math.min(dataLength, peer.length()));
            Buffer out = data;
            data = null;
            c.write(out, 0, n, peer, 0, 0); // consumes the buffer
        }
        expectSource = !expectSource;
    }

    @Override
    public void onComplete(Connection c, Operation op, long attachment) {
        switch (op) {
            case READ -> {
                if (verbose) {
                    run.out().println("server ping data: " + PingData.string(data.segment(), dataLength));
                }
                goAhead(c);
            }
            case WRITE -> goAhead(c);
            default -> { }
        }
    }

    private void goAhead(Connection c) {
        Buffer b = c.allocate();
        b.segment().asSlice(0, RemoteBuffer.BYTES).fill((byte) 0);
        c.send(b, RemoteBuffer.BYTES, 0);
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
        if (!(error instanceof WorkCompletionException w && w.isFlush())) {
            run.err().println("cq completion failed: " + error.getMessage());
            status = 1;
        }
        c.close();
    }

    @Override
    public void onDisconnected(Connection c) {
        run.err().println("server DISCONNECT EVENT...");
    }

    @Override
    public void onError(Connection c, Throwable error) {
        run.err().println("rping server connection failed: " + error.getMessage());
        status = 1;
    }

    @Override
    public void onClosed(Connection c) {
        if (data != null) {
            data.release();
            data = null;
        }
        closed.accept(status);
    }

    private void fail(Connection c) {
        status = 1;
        c.close();
    }
}
