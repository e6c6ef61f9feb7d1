package dev.ibex.samples.apm;

import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.samples.cli.SampleRun;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * apm.c's server: listens, takes one connection request, reads the client's alternate address from its private
 * data (unless {@code -d} gave it), answers with its own and runs the exchange. Loop thread.
 */
final class ApmServer implements ListenerHandler {
    private final SampleRun run;
    private final ApmSettings settings;
    private final CompletableFuture<InetSocketAddress> listening;
    private boolean served;

    ApmServer(SampleRun run, ApmSettings settings, CompletableFuture<InetSocketAddress> listening) {
        this.run = run;
        this.settings = settings;
        this.listening = listening;
    }

    @Override
    public void onListening(Listener l) {
        run.out().println("listening on " + l.localAddress());
        listening.complete(l.localAddress());
    }

    @Override
    public void onConnectionRequest(ConnectionRequest request) {
        if (served) {
            request.reject(null); // one client, as apm.c
            return;
        }
        served = true;
        ApmNode node = new ApmNode(run, settings, true);
        byte[] mine;
        try {
            mine = node.acceptData(request);
        } catch (RuntimeException e) {
            run.err().println(e.getMessage());
            request.reject(null);
            run.finish(1);
            return;
        }
        request.accept(node, mine); // the run ends when this connection closes: apm.c serves one
    }

    @Override
    public void onError(Listener l, Throwable error) {
        run.err().println("rdma_listen: " + error.getMessage());
        listening.completeExceptionally(error);
        run.finish(1);
    }
}
