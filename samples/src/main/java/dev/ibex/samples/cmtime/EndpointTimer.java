package dev.ibex.samples.cmtime;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.samples.cli.CmEventName;
import dev.ibex.samples.cli.SampleRun;
import java.net.InetSocketAddress;
import java.util.EnumSet;

/**
 * cmtime over the endpoint API ({@code --endpoints}): all connections {@link Connection#connect} at once (address
 * and route resolution, QP creation and the CM exchange: the "connect" row), then all close at once (disconnect,
 * drain, destroy: the "disconnect" row). This is the setup rate an application of the framework sees.
 */
final class EndpointTimer {
    private final SampleRun run;
    private final InetSocketAddress destination;
    private final Connection[] connections;
    private final boolean[] closed;
    private final StepTimes times;
    private final ConnectionOptions options;
    private boolean disconnecting;
    private int pending;
    private boolean failed;

    EndpointTimer(SampleRun run, InetSocketAddress destination, int connections, int timeoutMs, int retries) {
        this.run = run;
        this.destination = destination;
        this.connections = new Connection[connections];
        this.closed = new boolean[connections];
        this.times = new StepTimes(connections);
        // one send and one receive, no inline data, no RNR retries, no extra QP modify: cmtime's QPs and connect
        // parameters
        this.options = ConnectionOptions.DEFAULT.withResolveTimeoutMs(timeoutMs).withSendQueueDepth(1)
                .withReceiveWindow(1).withMaxInline(0).withSignalInterval(1).withRdmaDepth(1, 1).withRetries(retries, 0)
                .withMinRnrTimer(-1);
    }

    void start() {
        run.loop().execute(this::connect);
    }

    private void connect() {
        run.out().println("connecting");
        pending = connections.length;
        times.start(Step.CONNECT);
        for (int i = 0; i < connections.length; i++) {
            times.start(i, Step.CONNECT);
            connections[i] = Connection.connect(run.loop(), destination, null, options, new Handler(i));
        }
    }

    /** Callbacks of connection {@code index}. */
    private final class Handler implements ConnectionHandler {
        private final int index;
        private boolean established;

        Handler(int index) {
            this.index = index;
        }

        @Override
        public void onEstablished(Connection c) {
            established = true;
            times.end(index, Step.CONNECT);
            connected();
        }

        @Override
        public void onError(Connection c, Throwable error) {
            if (error instanceof RdmaConnectException e) {
                run.out().println("event: " + CmEventName.of(e) + ", error: " + e.status());
            } else {
                run.out().println("connection " + index + " failed: " + error.getMessage());
            }
            failed = true;
            if (!established) {
                connected();
            }
        }

        @Override
        public void onClosed(Connection c) {
            closed[index] = true;
            if (disconnecting) {
                times.end(index, Step.DISCONNECT);
                disconnected();
            }
        }
    }

    private void connected() {
        if (--pending > 0) {
            return;
        }
        times.end(Step.CONNECT);
        run.out().println("disconnecting");
        disconnecting = true;
        times.start(Step.DISCONNECT);
        pending = 1; // held until every close has started, so a synchronous close cannot finish early
        for (int i = 0; i < connections.length; i++) {
            if (!closed[i]) {
                pending++;
                times.start(i, Step.DISCONNECT);
                connections[i].close();
            }
        }
        disconnected();
    }

    private void disconnected() {
        if (--pending > 0) {
            return;
        }
        times.end(Step.DISCONNECT);
        times.print(run.out(), EnumSet.of(Step.CONNECT, Step.DISCONNECT));
        run.finish(failed ? 1 : 0);
    }
}
