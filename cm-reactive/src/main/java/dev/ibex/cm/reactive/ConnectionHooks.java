package dev.ibex.cm.reactive;

import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server or client calls as its connections live: the observer, the metrics recorder (may be {@code null}),
 * the wiretap (may be {@code null}) and the {@code doOnConnected}/{@code doOnDisconnected} callbacks. Immutable; each
 * builder step makes a new one.
 */
record ConnectionHooks(ConnectionObserver observer, RdmaMetricsRecorder metrics, WireLog wiretap,
        Consumer<? super RdmaConnection> onConnected, Consumer<? super RdmaConnection> onDisconnected) {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHooks.class);

    static final ConnectionHooks NONE = new ConnectionHooks(ConnectionObserver.NONE, null, null, null, null);

    ConnectionHooks observe(ConnectionObserver o) {
        return new ConnectionHooks(observer.then(o), metrics, wiretap, onConnected, onDisconnected);
    }

    ConnectionHooks metrics(RdmaMetricsRecorder m) {
        return new ConnectionHooks(observer, m, wiretap, onConnected, onDisconnected);
    }

    ConnectionHooks wiretap(WireLog w) {
        return new ConnectionHooks(observer, metrics, w, onConnected, onDisconnected);
    }

    ConnectionHooks doOnConnected(Consumer<? super RdmaConnection> c) {
        return new ConnectionHooks(observer, metrics, wiretap, chain(onConnected, c), onDisconnected);
    }

    ConnectionHooks doOnDisconnected(Consumer<? super RdmaConnection> c) {
        return new ConnectionHooks(observer, metrics, wiretap, onConnected, chain(onDisconnected, c));
    }

    private static Consumer<? super RdmaConnection> chain(Consumer<? super RdmaConnection> a,
            Consumer<? super RdmaConnection> b) {
        if (a == null) {
            return b;
        }
        return c -> {
            a.accept(c);
            b.accept(c);
        };
    }

    /** Tells the wiretap, the observer and, on ESTABLISHED/CLOSED, the connected/disconnected callbacks. Never throws. */
    void event(RdmaConnection c, ConnectionEvent e) {
        try {
            if (wiretap != null) {
                wiretap.event(c, e);
            }
            if (e.type() == ConnectionEvent.Type.ESTABLISHED && onConnected != null) {
                onConnected.accept(c);
            }
            if (e.type() == ConnectionEvent.Type.CLOSED && onDisconnected != null) {
                onDisconnected.accept(c);
            }
            observer.onEvent(c, e);
        } catch (Throwable t) {
            LOG.warn("a connection observer threw on {}", e.type(), t);
        }
    }
}
