package dev.ibex.samples.rping;

import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.samples.cli.SampleRun;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * rping's passive side: accepts a client and serves it until it disconnects, then the run ends with the session's
 * status; with {@code -P} (persistent) it serves any number of clients, concurrently, until killed.
 */
final class RpingServer implements ListenerHandler {
    private final SampleRun run;
    private final boolean verbose;
    private final boolean persistent;
    private final CompletableFuture<InetSocketAddress> listening;
    private boolean busy;

    RpingServer(SampleRun run, boolean verbose, boolean persistent, CompletableFuture<InetSocketAddress> listening) {
        this.run = run;
        this.verbose = verbose;
        this.persistent = persistent;
        this.listening = listening;
    }

    @Override
    public void onListening(Listener listener) {
        listening.complete(listener.localAddress());
    }

    @Override
    public void onConnectionRequest(ConnectionRequest request) {
        if (busy && !persistent) {
            request.reject(null); // the C server serves one client and then exits
            return;
        }
        busy = true;
        request.accept(new RpingSession(run, verbose, this::sessionClosed), null, run.loop());
    }

    private void sessionClosed(int status) {
        if (!persistent) {
            run.finish(status);
        }
    }

    @Override
    public void onError(Listener listener, Throwable error) {
        run.err().println("rdma_listen: " + error.getMessage());
        listening.completeExceptionally(error);
        run.finish(1);
    }
}
