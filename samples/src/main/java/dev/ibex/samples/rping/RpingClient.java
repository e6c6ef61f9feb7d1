package dev.ibex.samples.rping;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.endpoint.WorkCompletionException;
import dev.ibex.samples.cli.CmEventName;
import dev.ibex.samples.cli.SampleRun;
import java.util.EnumSet;

/**
 * The active side of rping's ping-pong. Once connected it exposes its source buffer for READ and its sink buffer for
 * WRITE, each exactly {@code size} bytes, to this connection only. Per ping: advertise the source buffer (filled with
 * {@link PingData});
 * the server RDMA READs it and answers "go ahead"; advertise the sink buffer; the server RDMA WRITEs the data back
 * and answers "go ahead"; compare ({@code -V}) and print ({@code -v}). After {@code count} pings (0: forever) it
 * disconnects. Every callback runs on the run's loop.
 */
final class RpingClient implements ConnectionHandler {
    private enum Phase { CONNECTING, SOURCE_ADVERTISED, SINK_ADVERTISED, DONE }

    private final SampleRun run;
    private final int size;
    private final int count;
    private final boolean verbose;
    private final boolean validate;
    private Phase phase = Phase.CONNECTING;
    private static final long SOURCE_BOUND = 1;
    private static final long SINK_BOUND = 2;
    private Buffer source;
    private Buffer sink;
    private Exposure sourceExposure;
    private Exposure sinkExposure;
    private int ping;
    private int start = PingData.FIRST;
    private int status;

    RpingClient(SampleRun run, int size, int count, boolean verbose, boolean validate) {
        this.run = run;
        this.size = size;
        this.count = count;
        this.verbose = verbose;
        this.validate = validate;
    }

    @Override
    public void onEstablished(Connection c) {
        source = c.allocate();
        sink = c.allocate();
        // least privilege: the server may only READ the source and only WRITE the sink, on this connection
        sourceExposure = c.expose(source, 0, size, EnumSet.of(RemoteAccess.READ), SOURCE_BOUND);
        sinkExposure = c.expose(sink, 0, size, EnumSet.of(RemoteAccess.WRITE), SINK_BOUND);
    }

    @Override
    public void onComplete(Connection c, Operation op, long attachment) {
        if (op == Operation.BIND_MW && attachment == SINK_BOUND) { // binds complete in order: both are live
            nextPing(c);
        }
    }

    private void nextPing(Connection c) {
        if (count > 0 && ping == count) {
            phase = Phase.DONE;
            c.close();
            return;
        }
        PingData.fill(source.segment(), size, ping, start);
        start = PingData.next(start);
        advertise(c, sourceExposure);
        phase = Phase.SOURCE_ADVERTISED;
    }

    /** Sends rping's {@code struct rping_rdma_info}: buf (be64), rkey (be32), size (be32). */
    private void advertise(Connection c, Exposure e) {
        Buffer msg = c.allocate();
        e.remote().encode(msg.segment(), 0);
        c.send(msg, RemoteBuffer.BYTES, 0);
    }

    @Override
    public void onMessage(Connection c, Buffer message) {
        int length = message.length();
        message.release();
        if (length != RemoteBuffer.BYTES) {
            run.err().printf("Received bogus data, size %d%n", length);
            fail(c);
            return;
        }
        switch (phase) {
            case SOURCE_ADVERTISED -> {
                advertise(c, sinkExposure);
                phase = Phase.SINK_ADVERTISED;
            }
            case SINK_ADVERTISED -> {
                if (validate && source.segment().asSlice(0, size).mismatch(sink.segment().asSlice(0, size)) >= 0) {
                    run.err().println("data mismatch!");
                    fail(c);
                    return;
                }
                if (verbose) {
                    run.out().println("ping data: " + PingData.string(sink.segment(), size));
                }
                ping++;
                nextPing(c);
            }
            default -> {
                run.err().println("unexpected go-ahead in state " + phase);
                fail(c);
            }
        }
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
        if (error instanceof WorkCompletionException w && w.isFlush()) {
            return;
        }
        run.err().println("cq completion failed: " + error.getMessage());
        fail(c);
    }

    @Override
    public void onDisconnected(Connection c) {
        run.err().println("client DISCONNECT EVENT...");
        if (phase != Phase.DONE) {
            // like the C client: the server went away; what was validated so far stands
            run.err().printf("wait for RDMA_WRITE_ADV state %s%n", phase);
        }
    }

    @Override
    public void onError(Connection c, Throwable error) {
        if (error instanceof RdmaConnectException e) {
            run.err().printf("cma event %s, error %d%n", CmEventName.of(e), e.status());
            run.err().println(e.getMessage());
            run.err().println("connect error -1");
        } else {
            run.err().println("rping client failed: " + error.getMessage());
        }
        status = 1;
    }

    @Override
    public void onClosed(Connection c) {
        if (source != null) {
            source.release();
            sink.release();
        }
        run.finish(status);
    }

    private void fail(Connection c) {
        status = 1;
        phase = Phase.DONE;
        c.close();
    }
}
