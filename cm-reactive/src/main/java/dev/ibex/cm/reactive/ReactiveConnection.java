package dev.ibex.cm.reactive;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionState;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.endpoint.PathEvent;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.AsyncEvent;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;

/**
 * The {@link RdmaConnection} over an established cm-core {@link Connection}: the receive {@link Inbound}, the
 * shared {@link Outbound} every send-side operation goes through ({@link PayloadPosting} puts payloads into buffers),
 * the {@link EventBroadcast}, and the lifecycle.
 * Callbacks arrive through {@link ConnectionBridge} on the loop; public methods may be called from any thread.
 */
final class ReactiveConnection implements RdmaConnection, SendTarget {
    /** The lifecycle log of every reactive connection (one logger name for the component). */
    static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RdmaConnection.class);

    private final Connection connection;
    private final ConnectionHooks hooks;
    private final RdmaMetricsRecorder metrics;
    private final WireLog wiretap;
    private final EventLoop loop;
    private final InetSocketAddress remote;
    private final Inbound<Message> inbound;
    private final Outbound outbound;
    private final EventBroadcast events;
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private volatile boolean disposeRequested;
    private volatile boolean closed;
    private volatile Throwable failure;
    private boolean peerDisconnected; // loop-confined
    private boolean countedOpen; // loop-confined: the recorder was told it opened and not yet that it closed
    // loop-confined
    private MonoSink<Void> pendingAlternate;
    private MonoSink<Void> pendingMigration;
    private final Map<Exposure, ReactiveExposure> exposures = new IdentityHashMap<>();
    /** SEND payloads into buffers and onto the connection, and the buffers of every other operation. */
    private final PayloadPosting posting;

    ReactiveConnection(Connection connection, ConnectionHooks hooks) {
        this.connection = connection;
        this.hooks = hooks;
        this.metrics = hooks.metrics();
        this.wiretap = hooks.wiretap();
        this.loop = connection.loop();
        this.remote = connection.remoteAddress();
        this.outbound = new Outbound(connection::writableSlots);
        this.events = new EventBroadcast(loop);
        this.posting = new PayloadPosting(this, connection, metrics, wiretap);
        this.inbound = new Inbound<>(loop, new Inbound.Framing<>() {
            @Override
            public Message open(Buffer buffer) {
                return Message.received(buffer);
            }

            @Override
            public Message open(BufferList message) {
                return Message.received(message);
            }

            @Override
            public void afterDelivery(Message m) {
                m.afterDelivery();
            }

            @Override
            public void delivered(Message m) {
                if (metrics != null) {
                    metrics.recordDataReceived(remote, m.length());
                }
            }
        }, "receive()");
    }

    // ---- RdmaConnection ----

    @Override
    public Flux<Message> receive() {
        return inbound;
    }

    @Override
    public Mono<Void> send(Publisher<?> messages) {
        Objects.requireNonNull(messages, "messages");
        return new SendOperation(this, messages);
    }

    @Override
    public Mono<Void> write(RemoteBuffer target, long targetOffset, Object data) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(data, "data");
        return new OneShotOperation<Void>(this, new OneShotOperation.Action<>() {
            @Override
            public Buffer post(long attachment) {
                Buffer b = posting.allocateFor(data);
                try {
                    int len = Payloads.copy(data, b);
                    if (wiretap != null) { // before posting: the buffer is the device's afterwards
                        wiretap.message(ReactiveConnection.this, "WRITE", b.segment(), 0, len, len);
                    }
                    connection.write(b, 0, len, target, targetOffset, attachment);
                    if (metrics != null) {
                        metrics.recordDataSent(remote, len);
                    }
                } catch (RuntimeException e) {
                    b.release();
                    throw e;
                }
                return null;
            }

            @Override
            public Void result(Buffer buffer) {
                return null;
            }
        });
    }

    @Override
    public Mono<Message> read(RemoteBuffer source, long sourceOffset, int length) {
        Objects.requireNonNull(source, "source");
        return new OneShotOperation<>(this, new OneShotOperation.Action<>() {
            @Override
            public Buffer post(long attachment) {
                Buffer b = posting.allocateFor(null);
                try {
                    connection.read(b, 0, length, source, sourceOffset, attachment);
                } catch (RuntimeException e) {
                    b.release();
                    throw e;
                }
                return b;
            }

            @Override
            public Message result(Buffer buffer) {
                return new Message(buffer, 0, length, false, 0);
            }
        });
    }

    @Override
    public Mono<Long> fetchAdd(RemoteBuffer target, long targetOffset, long delta) {
        Objects.requireNonNull(target, "target");
        return atomic(attachment -> {
            Buffer b = posting.allocateFor(null);
            try {
                connection.fetchAndAdd(b, 0, target, targetOffset, delta, attachment);
            } catch (RuntimeException e) {
                b.release();
                throw e;
            }
            return b;
        });
    }

    @Override
    public Mono<Long> compareSwap(RemoteBuffer target, long targetOffset, long expected, long desired) {
        Objects.requireNonNull(target, "target");
        return atomic(attachment -> {
            Buffer b = posting.allocateFor(null);
            try {
                connection.compareAndSwap(b, 0, target, targetOffset, expected, desired, attachment);
            } catch (RuntimeException e) {
                b.release();
                throw e;
            }
            return b;
        });
    }

    private Mono<Long> atomic(java.util.function.LongFunction<Buffer> post) {
        return new OneShotOperation<>(this, new OneShotOperation.Action<>() {
            @Override
            public Buffer post(long attachment) {
                return post.apply(attachment);
            }

            @Override
            public Long result(Buffer buffer) {
                try {
                    return buffer.segment().get(ValueLayout.JAVA_LONG, 0);
                } finally {
                    buffer.release();
                }
            }
        });
    }

    @Override
    public Mono<RdmaExposure> expose(Buffer buffer, RemoteAccess... rights) {
        Objects.requireNonNull(buffer, "buffer");
        return expose(buffer, 0, buffer.capacity(), rights);
    }

    @Override
    public Mono<RdmaExposure> expose(Buffer buffer, int offset, int length, RemoteAccess... rights) {
        Objects.requireNonNull(buffer, "buffer");
        Set<RemoteAccess> asked = rights == null || rights.length == 0 ? Set.of() : EnumSet.copyOf(List.of(rights));
        RemoteAccess.mask(asked); // no rights is a mistake: say so before subscribing
        return new OneShotOperation<>(this, new OneShotOperation.Action<RdmaExposure>() {
            private Exposure exposure;

            @Override
            public Buffer post(long attachment) {
                exposure = connection.expose(buffer, offset, length, asked, attachment);
                return null;
            }

            @Override
            public RdmaExposure result(Buffer ignored) {
                ReactiveExposure r = new ReactiveExposure(exposure);
                exposures.put(exposure, r);
                return r;
            }

            @Override
            public void abandoned() {
                if (exposure != null) {
                    exposure.revoke();
                }
            }
        });
    }

    @Override
    public Mono<Buffer> allocate() {
        return Mono.<Buffer>create(sink -> onLoop(() -> {
            try {
                sink.success(connection.allocate());
            } catch (RuntimeException e) {
                sink.error(e);
            }
        }, sink::error)).doOnDiscard(Buffer.class, Buffer::release);
    }

    @Override
    public Flux<ConnectionEvent> events() {
        return events;
    }

    @Override
    public Mono<Void> alternatePath(InetSocketAddress localAlternate, InetSocketAddress remoteAlternate) {
        Objects.requireNonNull(localAlternate, "localAlternate");
        Objects.requireNonNull(remoteAlternate, "remoteAlternate");
        return pathCommand(true, () -> connection.alternatePath(localAlternate, remoteAlternate), "alternatePath");
    }

    @Override
    public Mono<Void> migrate() {
        return pathCommand(false, connection::migrate, "migrate");
    }

    @Override
    public Mono<Void> rearm() {
        return pathCommand(true, connection::rearm, "rearm");
    }

    /**
     * Issues a path command on the loop; its outcome arrives as a path event: ALTERNATE_LOADED/FAILED for loads
     * ({@code load}), MIGRATED/MIGRATION_ERROR for a forced migration. A later command of the same kind supersedes an
     * unanswered one.
     */
    private Mono<Void> pathCommand(boolean load, Runnable command, String name) {
        return Mono.create(sink -> onLoop(() -> {
            if (closed || connection.state() != ConnectionState.ESTABLISHED) {
                sink.error(notUsable());
                return;
            }
            MonoSink<Void> previous = load ? pendingAlternate : pendingMigration;
            if (load) {
                pendingAlternate = sink; // set first: the outcome may be reported synchronously
            } else {
                pendingMigration = sink;
            }
            try {
                command.run();
            } catch (RuntimeException e) {
                if (load) {
                    pendingAlternate = previous;
                } else {
                    pendingMigration = previous;
                }
                sink.error(e);
                return;
            }
            if (previous != null) {
                previous.error(new IllegalStateException("superseded by a later " + name));
            }
        }, sink::error));
    }

    @Override
    public dev.ibex.cm.spi.MigState pathMigrationState() {
        return closed ? null : connection.pathMigrationState();
    }

    @Override
    public dev.ibex.cm.endpoint.RdmaPath primaryPath() {
        return closed ? null : connection.primaryPath();
    }

    @Override
    public Mono<Void> onDispose() {
        return disposed.asMono();
    }

    @Override
    public Mono<Void> disconnect() {
        return Mono.defer(() -> {
            dispose();
            return onDispose();
        });
    }

    @Override
    public void dispose() {
        if (disposeRequested) {
            return;
        }
        disposeRequested = true;
        onLoop(() -> outbound.close(new IllegalStateException(this + " was disposed")), t -> { });
        connection.close();
    }

    @Override
    public boolean isDisposed() {
        return disposeRequested || closed;
    }

    @Override
    public byte[] peerPrivateData() {
        return connection.peerPrivateData();
    }

    @Override
    public InetSocketAddress localAddress() {
        return connection.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public boolean isPassive() {
        return connection.isPassive();
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Connection connection() {
        return connection;
    }

    // ---- SendTarget ----

    @Override
    public Outbound outbound() {
        return outbound;
    }

    @Override
    public boolean bufferAvailable(Object item, Runnable whenFree) {
        return posting.bufferAvailable(item, whenFree);
    }

    @Override
    public int post(Object item, long attachment) {
        return posting.post(item, attachment);
    }

    // ---- callbacks (loop thread, through ConnectionBridge) ----

    void established() {
        if (metrics != null) {
            metrics.recordConnectionOpened(remote);
            countedOpen = true;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} established", WireLog.prefix(this));
        }
        emit(ConnectionEvent.ESTABLISHED);
    }

    void received(Buffer b) {
        if (wiretap != null) {
            wiretap.message(this, "RECEIVED", b.segment(), b.offset(), b.length(), b.length());
        }
        inbound.offer(b);
    }

    void received(BufferList m) {
        if (wiretap != null) {
            wiretap.message(this, "RECEIVED", m.buffer(0).segment(), m.offset(0), m.length(0), m.length());
        }
        inbound.offer(m);
    }

    void completed(long attachment) {
        outbound.completed(attachment);
    }

    void failed(long attachment, RdmaException error) {
        if (metrics != null && !(error instanceof dev.ibex.cm.endpoint.WorkCompletionException w && w.isFlush())) {
            metrics.incrementErrorsCount(remote);
        }
        outbound.failed(attachment, error);
    }

    void writable() {
        outbound.grant();
    }

    void exposureEnded(Exposure e) {
        ReactiveExposure r = exposures.remove(e);
        if (r != null) {
            r.ended();
        }
    }

    void disconnected() {
        peerDisconnected = true;
        emit(ConnectionEvent.DISCONNECTED);
        // receive() completes at CLOSED: messages that arrived before the disconnect may still be delivered
        outbound.close(new IllegalStateException(this + ": the peer disconnected"));
    }

    void pathEvent(PathEvent e) {
        switch (e.type()) {
            case ALTERNATE_LOADED -> {
                emit(ConnectionEvent.path(ConnectionEvent.Type.ALTERNATE_PATH_LOADED, null, e.primary()));
                complete(true, null);
            }
            case ALTERNATE_FAILED -> {
                emit(ConnectionEvent.path(ConnectionEvent.Type.ALTERNATE_PATH_FAILED, e.cause(), e.primary()));
                complete(true, e.cause());
            }
            case ARMED -> emit(ConnectionEvent.path(ConnectionEvent.Type.PATH_ARMED, null, e.primary()));
            case MIGRATED -> {
                emit(ConnectionEvent.path(ConnectionEvent.Type.PATH_MIGRATED, null, e.primary()));
                complete(false, null);
            }
            case MIGRATION_ERROR -> {
                emit(ConnectionEvent.path(ConnectionEvent.Type.PATH_MIG_ERROR, e.cause(), e.primary()));
                complete(false, e.cause());
            }
        }
    }

    private void complete(boolean load, Throwable error) {
        MonoSink<Void> s = load ? pendingAlternate : pendingMigration;
        if (load) {
            pendingAlternate = null;
        } else {
            pendingMigration = null;
        }
        if (s != null) {
            if (error == null) {
                s.success();
            } else {
                s.error(error);
            }
        }
    }

    void addressChanged() {
        emit(ConnectionEvent.of(ConnectionEvent.Type.ADDRESS_CHANGED));
    }

    void deviceEvent(AsyncEvent e) {
        emit(new ConnectionEvent(ConnectionEvent.Type.DEVICE_EVENT, null, e, null));
    }

    void error(Throwable t) {
        failure = t;
        LOG.warn("{} failed: {}", WireLog.prefix(this), t.toString());
        if (metrics != null) {
            metrics.incrementErrorsCount(remote);
        }
        emit(ConnectionEvent.failure(ConnectionEvent.Type.ERROR, t));
        inbound.fail(t);
        IllegalStateException earlier = failedEarlier(t);
        outbound.close(earlier);
        failPending(earlier);
    }

    /** What an operation gets once the connection has failed: the failure, named as earlier, as its cause. */
    private IllegalStateException failedEarlier(Throwable t) {
        return new IllegalStateException(this + ": the connection failed earlier: " + t.getMessage(), t);
    }

    private IllegalStateException notUsable() {
        Throwable f = failure;
        return f != null ? failedEarlier(f) : new IllegalStateException("the connection is " + connection.state());
    }

    void closed() {
        closed = true;
        if (countedOpen) {
            countedOpen = false;
            metrics.recordConnectionClosed(remote);
        }
        Throwable f = failure;
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} closed: {}", WireLog.prefix(this), f != null ? "it failed (" + f + ")"
                    : peerDisconnected ? "the peer disconnected" : disposeRequested ? "disposed" : "its loop closed");
        }
        IllegalStateException gone = f != null ? failedEarlier(f) : new IllegalStateException(this + " is closed");
        outbound.close(gone);
        inbound.finish();
        inbound.closeUnsubscribed();
        failPending(gone);
        emit(ConnectionEvent.CLOSED);
        events.finish();
        disposed.tryEmitEmpty();
    }

    private void failPending(Throwable t) {
        MonoSink<Void> a = pendingAlternate;
        MonoSink<Void> m = pendingMigration;
        pendingAlternate = null;
        pendingMigration = null;
        if (a != null) {
            a.error(t);
        }
        if (m != null) {
            m.error(t);
        }
    }

    private void emit(ConnectionEvent e) {
        events.emit(e);
        hooks.event(this, e);
    }

    // ---- for tests (loop thread) ----

    /** Messages waiting for demand in {@link #receive()}. */
    int queuedMessages() {
        return inbound.queued();
    }

    /** Outstanding demand of {@link #receive()}. */
    long inboundDemand() {
        return inbound.demand();
    }

    /** Reactive operations still registered (0 when everything finished). */
    int registeredOperations() {
        return outbound.registered();
    }

    private void onLoop(Runnable r, java.util.function.Consumer<Throwable> gone) {
        if (loop.inEventLoop()) {
            r.run();
            return;
        }
        try {
            loop.execute(r);
        } catch (RejectedExecutionException e) {
            gone.accept(new IllegalStateException("the event loop has terminated", e));
        }
    }

    @Override
    public String toString() {
        return "RdmaConnection[" + (isPassive() ? "from " : "to ") + remote + "]";
    }
}
