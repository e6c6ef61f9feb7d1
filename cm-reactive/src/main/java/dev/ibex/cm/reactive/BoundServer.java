package dev.ibex.cm.reactive;

import dev.ibex.cm.RejectReason;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.cm.loop.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;

/**
 * A listening {@link RdmaServer}: the cm-core {@link Listener}'s handler. Runs requests through the accept policy,
 * hands established connections to the handler and to {@link #connections()}, and tracks them so that dispose
 * closes everything it started.
 */
final class BoundServer implements DisposableServer, ListenerHandler {
    /** The server's lifecycle log: one logger name for the component. */
    private static final Logger LOG = LoggerFactory.getLogger(RdmaServer.class);

    private final RdmaServer.Config config;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final MonoSink<DisposableServer> bindSink;
    private final Context context;
    private final Set<ReactiveConnection> live = ConcurrentHashMap.newKeySet();
    private final Set<Decision> pending = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepting = new AtomicInteger();
    private final Sinks.Many<RdmaConnection> accepted = Sinks.many().multicast().directBestEffort();
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private final AtomicBoolean disposed = new AtomicBoolean();
    private final AtomicBoolean finished = new AtomicBoolean();
    /** Accepted connections whose handshake has not completed (closed on dispose). */
    private final Set<dev.ibex.cm.endpoint.Connection> handshaking = ConcurrentHashMap.newKeySet();
    private volatile Listener listener;
    private volatile boolean bound;
    private volatile boolean listenerClosed;
    /** Why the listener stopped after it was bound (its device was removed), or {@code null}. */
    private volatile Throwable listenerFailure;

    BoundServer(RdmaServer.Config config, EventLoopGroup group, boolean ownsGroup, MonoSink<DisposableServer> sink,
            Context context) {
        this.config = config;
        this.group = group;
        this.ownsGroup = ownsGroup;
        this.bindSink = sink;
        this.context = context;
    }

    void start() {
        listener = Listener.listen(group.next(), config.address(), config.options(), this);
    }

    void bindCancelled() {
        if (!bound) {
            dispose();
        }
    }

    // ---- DisposableServer ----

    @Override
    public InetSocketAddress address() {
        Listener l = listener;
        InetSocketAddress a = l == null ? null : l.localAddress();
        return a != null ? a : config.address();
    }

    @Override
    public Flux<RdmaConnection> connections() {
        return accepted.asFlux();
    }

    @Override
    public int halfOpenConnections() {
        Listener l = listener;
        return l == null ? 0 : l.halfOpen();
    }

    @Override
    public long refusedRequests() {
        Listener l = listener;
        return l == null ? 0 : l.refusedRequests();
    }

    @Override
    public int activeConnections() {
        return live.size();
    }

    @Override
    public Mono<Void> onDispose() {
        return terminated.asMono();
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    @Override
    public void dispose() {
        if (!disposed.compareAndSet(false, true)) {
            return;
        }
        Listener l = listener;
        if (l != null) {
            l.close();
        } else {
            listenerClosed = true;
        }
        for (Decision d : pending) {
            d.serverDisposed();
        }
        for (ReactiveConnection c : live) {
            c.dispose();
        }
        for (dev.ibex.cm.endpoint.Connection c : handshaking) {
            c.close(); // accepted, handshake not complete (a peer that never sends its RTU must not hold us up)
        }
        synchronized (accepted) {
            accepted.tryEmitComplete();
        }
        maybeFinish();
    }

    // ---- ListenerHandler (listener loop) ----

    @Override
    public void onListening(Listener l) {
        bound = true;
        if (disposed.get()) {
            return;
        }
        if (config.onBound() != null) {
            try {
                config.onBound().accept(this);
            } catch (Throwable t) {
                LOG.warn("doOnBound threw", t);
            }
        }
        LOG.info("{} listening (provider {})", this, group.fabric().providerName());
        bindSink.success(this);
    }

    @Override
    public void onError(Listener l, Throwable error) {
        if (!bound) {
            bindSink.error(error);
        } else {
            LOG.warn("{} stopped listening", this, error);
            listenerFailure = error;
            disposed.set(true); // it accepts nothing more: the server ends, with this error, once its connections have
        }
    }

    @Override
    public void onClosed(Listener l) {
        listenerClosed = true;
        if (!bound) {
            disposed.set(true);
        }
        maybeFinish();
    }

    @Override
    public void onConnectionRequest(ConnectionRequest request) {
        WireLog tap = config.hooks().wiretap();
        if (tap != null) {
            byte[] pd = request.privateData();
            tap.cm("REQUEST", request.peerAddress(), (pd == null ? 0 : pd.length) + "B of private data");
        }
        RdmaMetricsRecorder metrics = config.hooks().metrics();
        RdmaObservation observation = metrics == null ? null
                : metrics.observeConnection(request.peerAddress(), group.fabric().providerName(), context);
        if (disposed.get()) {
            LOG.debug("rejected a connection request from {}: the server is closing", WireLog.format(
                    request.peerAddress()));
            stop(observation, "REJECTED", null);
            request.reject(RejectReason.CLOSING.encode(null));
            return;
        }
        if (config.policy() == null) {
            accept(request, null, System.nanoTime(), observation);
            return;
        }
        Decision d = new Decision(request, observation);
        pending.add(d);
        Mono<AcceptDecision> m;
        try {
            m = config.policy().apply(new RdmaRequest(request));
        } catch (Throwable t) {
            LOG.warn("the accept policy threw; rejecting {}", request.peerAddress(), t);
            d.answer(AcceptDecision.reject(RejectReason.POLICY_FAILED.encode(t.toString())));
            return;
        }
        if (m == null) {
            d.answer(AcceptDecision.reject(RejectReason.POLICY_FAILED.encode("the policy returned null")));
            return;
        }
        m.subscribe(d);
    }

    private static void stop(RdmaObservation observation, String status, Throwable error) {
        if (observation != null) {
            observation.stop(status, error);
        }
    }

    private void accept(ConnectionRequest request, byte[] privateData, long startNanos, RdmaObservation observation) {
        accepting.incrementAndGet();
        record(request, startNanos, "ACCEPTED");
        LOG.debug("accepting a connection request from {}", WireLog.format(request.peerAddress()));
        if (config.hooks().wiretap() != null) {
            config.hooks().wiretap().cm("ACCEPT", request.peerAddress(), null);
        }
        dev.ibex.cm.endpoint.Connection conn = request.connection();
        handshaking.add(conn);
        try {
            request.accept(new ConnectionBridge(config.hooks(), new Accepted(conn, observation)), privateData);
        } catch (RuntimeException e) {
            handshaking.remove(conn);
            accepting.decrementAndGet();
            stop(observation, "ERROR", e);
            LOG.warn("accepting {} failed", request.peerAddress(), e);
            request.reject(RejectReason.ACCEPT_FAILED.encode(e.getMessage()));
        }
    }

    private void reject(ConnectionRequest request, byte[] privateData, long startNanos, RdmaObservation observation) {
        record(request, startNanos, "REJECTED");
        stop(observation, "REJECTED", null);
        if (LOG.isDebugEnabled() || config.hooks().wiretap() != null) {
            String why = RejectReason.of(privateData) != null ? RejectReason.of(privateData) + " "
                    + RejectReason.detail(privateData) : "by the accept policy";
            LOG.debug("rejected a connection request from {}: {}", WireLog.format(request.peerAddress()), why);
            if (config.hooks().wiretap() != null) {
                config.hooks().wiretap().cm("REJECT", request.peerAddress(), why);
            }
        }
        request.reject(privateData);
    }

    private void record(ConnectionRequest request, long startNanos, String status) {
        RdmaMetricsRecorder m = config.hooks().metrics();
        if (m != null) {
            m.recordAcceptDecision(request.peerAddress(), Duration.ofNanos(System.nanoTime() - startNanos), status);
        }
    }

    /** An accepted connection's outcome (its loop). */
    private final class Accepted implements ConnectionBridge.Outcome {
        private final dev.ibex.cm.endpoint.Connection connection;
        private final RdmaObservation observation;

        Accepted(dev.ibex.cm.endpoint.Connection connection, RdmaObservation observation) {
            this.connection = connection;
            this.observation = observation;
        }

        @Override
        public void established(ReactiveConnection rc) {
            live.add(rc);
            handshaking.remove(connection);
            accepting.decrementAndGet();
            stop(observation, "SUCCESS", null);
            rc.onDispose().subscribe(null, null, () -> {
                live.remove(rc);
                maybeFinish();
            });
            if (disposed.get()) {
                rc.dispose();
                return;
            }
            synchronized (accepted) { // connections are established on several loops at once
                accepted.tryEmitNext(rc);
            }
            if (config.handler() != null) {
                ConnectionHandlerSubscriber.run(rc, config.handler(), observation == null ? context
                        : observation.context(context));
            }
        }

        @Override
        public void failed(Throwable error) {
            handshaking.remove(connection);
            accepting.decrementAndGet();
            stop(observation, "ERROR", error);
            if (disposed.get()) { // the server closed it: no failure
                LOG.debug("an accepted connection from {} was closed with the server before it was established",
                        WireLog.format(connection.remoteAddress()));
            } else {
                LOG.warn("an accepted connection from {} failed before it was established: {}",
                        WireLog.format(connection.remoteAddress()), error.toString());
            }
            maybeFinish();
        }
    }

    /** Waits for the accept policy's answer to one request; the first answer counts. */
    private final class Decision extends BaseSubscriber<AcceptDecision> {
        private final ConnectionRequest request;
        private final RdmaObservation observation;
        private final long startNanos = System.nanoTime();
        private final AtomicBoolean answered = new AtomicBoolean();

        Decision(ConnectionRequest request, RdmaObservation observation) {
            this.request = request;
            this.observation = observation;
        }

        @Override
        public Context currentContext() {
            return context;
        }

        @Override
        protected void hookOnNext(AcceptDecision value) {
            answer(value);
            dispose();
        }

        @Override
        protected void hookOnComplete() {
            answer(AcceptDecision.reject(RejectReason.POLICY_FAILED.encode("the policy completed without a decision")));
        }

        @Override
        protected void hookOnError(Throwable t) {
            LOG.warn("the accept policy failed; rejecting {}", request.peerAddress(), t);
            answer(AcceptDecision.reject(RejectReason.POLICY_FAILED.encode(t.toString())));
        }

        void serverDisposed() {
            dispose();
            answer(AcceptDecision.reject(RejectReason.CLOSING.encode(null)));
        }

        void answer(AcceptDecision d) {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            pending.remove(this);
            if (d instanceof AcceptDecision.Accept a && !disposed.get()) {
                accept(request, a.privateData(), startNanos, observation);
            } else {
                reject(request, d instanceof AcceptDecision.Reject r ? r.privateData() : null, startNanos,
                        observation);
            }
        }
    }

    private void maybeFinish() {
        if (!disposed.get() || !listenerClosed || !live.isEmpty() || accepting.get() > 0) {
            return;
        }
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        if (config.onUnbound() != null && bound) {
            try {
                config.onUnbound().accept(this);
            } catch (Throwable t) {
                LOG.warn("doOnUnbound threw", t);
            }
        }
        if (bound) {
            LOG.info("{} stopped listening", this);
        }
        Throwable failure = listenerFailure;
        Runnable end = failure == null ? terminated::tryEmitEmpty : () -> terminated.tryEmitError(failure);
        if (ownsGroup) {
            group.shutdownGracefully().whenComplete((v, e) -> end.run());
        } else {
            end.run();
        }
    }

    @Override
    public String toString() {
        return "RdmaServer[" + address() + "]";
    }
}
