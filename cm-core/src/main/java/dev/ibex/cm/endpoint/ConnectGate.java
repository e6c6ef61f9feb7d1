package dev.ibex.cm.endpoint;

import dev.ibex.cm.loop.EventLoop;
import java.util.ArrayDeque;

/**
 * Bounds the connects one loop runs at once ({@link dev.ibex.cm.loop.LoopOptions#maxConcurrentConnects()}): the
 * rest wait in order, so a storm of connects queues instead of overrunning the CM (whose requests time out) and
 * the peer's half-open bounds (which refuse them). A waiting connect keeps its timeout and can be closed. Admitting
 * the next never recurses (a connect may fail synchronously and leave the gate at once). Loop-confined.
 */
final class ConnectGate {
    private final int max;
    private final ArrayDeque<Connection> waiting = new ArrayDeque<>();
    private int active;
    private boolean admitting;

    private ConnectGate(int max) {
        this.max = max;
    }

    static ConnectGate of(EventLoop loop) {
        return loop.attachment(ConnectGate.class, l -> new ConnectGate(l.options().maxConcurrentConnects()));
    }

    /** {@code c} wants to start; it is admitted now or later ({@link ConnectionSetup#admitted()}). */
    void enter(Connection c) {
        waiting.add(c);
        admit();
    }

    /** An admitted connect ended its attempt (established, failed or closed). */
    void leave() {
        active--;
        admit();
    }

    int active() {
        return active;
    }

    int waiting() {
        return waiting.size();
    }

    private void admit() {
        if (admitting) {
            return; // the outer admit() goes on
        }
        admitting = true;
        try {
            Connection next;
            while (active < max && (next = waiting.poll()) != null) {
                if (next.setup.stillWaiting()) {
                    active++;
                    next.setup.admitted();
                }
            }
        } finally {
            admitting = false;
        }
    }
}
