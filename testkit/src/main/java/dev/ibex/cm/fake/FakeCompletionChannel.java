package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A completion channel: armed CQs that received a completion queue themselves here. */
final class FakeCompletionChannel extends FakeSource implements CompletionChannel {
    private final FakeFabric fabric;
    private final ConcurrentLinkedQueue<FakeCq> events = new ConcurrentLinkedQueue<>();
    int cqs;
    private volatile boolean closed;

    FakeCompletionChannel(FakeFabric fabric) {
        this.fabric = fabric;
        fabric.tracker.opened(this);
    }

    @Override
    public CompletionQueue poll() {
        if (closed) {
            throw new IllegalStateException("completion channel is closed");
        }
        FakeCq cq;
        while ((cq = events.poll()) != null) {
            if (cq.taken()) {
                return cq;
            }
        }
        return null;
    }

    @Override
    boolean ready() {
        return !events.isEmpty();
    }

    void notify(FakeCq cq) {
        events.add(cq);
        signal();
    }

    void forget(FakeCq cq) {
        events.removeIf(c -> c == cq);
    }

    @Override
    public void close() {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            if (cqs > 0) {
                throw new RdmaException("ibv_destroy_comp_channel", Errno.EBUSY, cqs + " CQs still use the channel");
            }
            closed = true;
        }
        fabric.tracker.closed(this);
    }
}
