package dev.ibex.cm.fake;

import dev.ibex.cm.spi.EventSource;

/** A fake event source: level-triggered readiness plus the poller to signal when something arrives. */
abstract class FakeSource implements EventSource {
    private volatile FakePoller poller;

    abstract boolean ready();

    void attach(FakePoller p) {
        poller = p;
    }

    void signal() {
        FakePoller p = poller;
        if (p != null) {
            p.signal();
        }
    }
}
