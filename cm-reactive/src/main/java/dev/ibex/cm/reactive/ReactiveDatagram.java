package dev.ibex.cm.reactive;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramHandler;
import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.cm.endpoint.DatagramRequest;
import dev.ibex.cm.endpoint.Membership;
import dev.ibex.cm.endpoint.MembershipState;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;

/**
 * The {@link DatagramEndpoint} over a cm-core {@link Datagram} (and, for {@link RdmaMulticast}, the
 * {@link RdmaMembership} over its one {@link Membership}): the bounded, drop-counting receive {@link Inbound}, the
 * {@link Outbound} every send goes through, pending SIDR resolutions, and the setup {@code Mono} (bound, or joined).
 * cm-core callbacks arrive here on the loop; public methods may be called from any thread.
 */
final class ReactiveDatagram implements DatagramEndpoint, DatagramHandler {
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;

    private final EventLoop loop;
    private final InetSocketAddress group;
    private final boolean sendOnly;
    private final Function<? super DatagramRequest, ? extends Publisher<AcceptDecision>> policy;
    private final RdmaMetricsRecorder recorder;
    private final Inbound<DatagramMessage> inbound;
    private final Outbound outbound;
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private final AtomicInteger setupState = new AtomicInteger();
    private final MembershipView membershipView = new MembershipView();
    private volatile MonoSink<Object> setup;
    private volatile Datagram datagram;
    private volatile boolean disposeRequested;
    private volatile boolean closed;
    private volatile long startNanos;
    // loop-confined
    /** The endpoint's meters once bound (or once a join failed before), {@code null} without a recorder. */
    private RdmaDatagramMetrics meters;
    private Membership membership;
    private final List<PendingResolve> resolves = new ArrayList<>();

    private record PendingResolve(InetSocketAddress remote, MonoSink<UdPeer> sink, AtomicBoolean cancelled) {}

    /**
     * @param group the group to join once bound ({@code null}: a plain datagram endpoint)
     * @param queue how many datagrams may wait for demand
     * @param recorder where its meters come from ({@code null}: none)
     */
    ReactiveDatagram(EventLoop loop, InetSocketAddress group, boolean sendOnly, int queue,
            Function<? super DatagramRequest, ? extends Publisher<AcceptDecision>> policy,
            RdmaMetricsRecorder recorder) {
        this.loop = loop;
        this.group = group;
        this.sendOnly = sendOnly;
        this.policy = policy;
        this.recorder = recorder;
        this.outbound = new Outbound(() -> {
            Datagram d = datagram;
            return d == null ? 0 : d.writableSlots();
        });
        this.inbound = new Inbound<>(loop, new Inbound.Framing<>() {
            @Override
            public DatagramMessage open(Buffer buffer) {
                return new DatagramMessage(buffer);
            }

            @Override
            public void afterDelivery(DatagramMessage m) {
                m.afterDelivery();
            }

            @Override
            public void delivered(DatagramMessage m) {
                RdmaDatagramMetrics r = meters;
                if (r != null) {
                    r.recordDataReceived(m.length());
                }
            }
        }, "receive()", queue);
    }

    /**
     * Binds (and joins), reporting to {@code sink}: this endpoint once bound, or the membership once joined.
     * Cancelling the sink before that closes everything made so far.
     */
    @SuppressWarnings("unchecked")
    void start(InetSocketAddress address, DatagramOptions options, MonoSink<?> sink) {
        setup = (MonoSink<Object>) sink;
        startNanos = System.nanoTime();
        sink.onCancel(this::cancelSetup);
        Datagram d = Datagram.bind(loop, address, options, this);
        datagram = d;
        if (setupState.get() == CANCELLED) {
            d.close();
        }
    }

    private void cancelSetup() {
        if (setupState.compareAndSet(PENDING, CANCELLED)) {
            onLoop(() -> joinEnded("CANCELLED"), t -> { });
            Datagram d = datagram;
            if (d != null) {
                d.close(); // leaves a group being joined before the id goes
            }
        }
    }

    private void setupDone(Object value) {
        if (setupState.compareAndSet(PENDING, DONE)) {
            joinEnded("SUCCESS");
            setup.success(value);
        } else {
            datagram.close();
        }
    }

    private void setupFailed(Throwable t) {
        if (setupState.compareAndSet(PENDING, DONE)) {
            joinEnded(t instanceof dev.ibex.cm.RdmaConnectException x ? x.reason().name() : "ERROR");
            setup.error(t);
        }
    }

    /**
     * The meters of this endpoint, made once (loop thread): tagged with the device once bound, {@code "unknown"} when
     * a join failed before.
     */
    private RdmaDatagramMetrics meters() {
        if (meters == null && recorder != null) {
            Datagram d = datagram;
            dev.ibex.cm.spi.DeviceContext device = d == null ? null : d.device();
            RdmaDatagramMetrics m = recorder.datagramMetrics(new RdmaDatagramMetrics.Endpoint(
                    loop.fabric().providerName(), device == null ? "unknown" : device.device().name(),
                    loop.toString(), group, sendOnly), this::lost);
            meters = m == null ? RdmaDatagramMetrics.NONE : m;
        }
        return meters;
    }

    /** A membership's join ended (loop thread): its time and status, once. */
    private void joinEnded(String status) {
        if (group != null && recorder != null) {
            meters().recordJoinTime(java.time.Duration.ofNanos(System.nanoTime() - startNanos), status);
        }
    }

    private void countError() {
        RdmaDatagramMetrics r = meters;
        if (r != null) {
            r.incrementErrorsCount();
        }
    }

    RdmaMembership membershipView() {
        return membershipView;
    }

    // ---- DatagramEndpoint ----

    @Override
    public Flux<DatagramMessage> receive() {
        return inbound;
    }

    @Override
    public Mono<UdPeer> resolve(InetSocketAddress service, byte[] privateData) {
        Objects.requireNonNull(service, "service");
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        return Mono.<UdPeer>create(sink -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> cancelled.set(true));
            onLoop(() -> {
                if (cancelled.get()) {
                    return;
                }
                if (closed || disposeRequested) {
                    sink.error(new IllegalStateException(this + " is closed"));
                    return;
                }
                PendingResolve p = new PendingResolve(service, sink, cancelled);
                resolves.add(p);
                try {
                    datagram.resolve(service, data); // the outcome is reported later, on this loop
                } catch (RuntimeException e) {
                    resolves.remove(p);
                    sink.error(e);
                }
            }, sink::error);
        }).doOnDiscard(UdPeer.class, UdPeer::close);
    }

    @Override
    public Mono<Void> send(UdPeer to, Publisher<?> datagrams) {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(datagrams, "datagrams");
        return new SendOperation(new PeerTarget(to), datagrams);
    }

    @Override
    public Mono<UdPeer> replyTo(DatagramMessage message) {
        Objects.requireNonNull(message, "message");
        return Mono.<UdPeer>create(sink -> onLoop(() -> {
            try {
                sink.success(datagram.peerOf(message.buffer()));
            } catch (RuntimeException e) {
                sink.error(e);
            }
        }, sink::error)).doOnDiscard(UdPeer.class, UdPeer::close);
    }

    @Override
    public long drops() {
        return lost();
    }

    /** What the inbound dropped plus what the endpoint lost before it (the device's drops, failed receives). */
    private long lost() {
        Datagram d = datagram;
        return inbound.dropped() + (d == null ? 0 : d.receiveDrops());
    }

    @Override
    public InetSocketAddress localAddress() {
        return datagram.localAddress();
    }

    @Override
    public int qpNum() {
        return datagram.qpNum();
    }

    @Override
    public int maxPayload() {
        return datagram.maxPayload();
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public Datagram datagram() {
        return datagram;
    }

    @Override
    public Mono<Void> onDispose() {
        return disposed.asMono();
    }

    @Override
    public void dispose() {
        if (disposeRequested) {
            return;
        }
        disposeRequested = true;
        onLoop(() -> outbound.close(new IllegalStateException(this + " was disposed")), t -> { });
        Datagram d = datagram;
        if (d != null) {
            d.close();
        }
    }

    @Override
    public boolean isDisposed() {
        return disposeRequested || closed;
    }

    // ---- where sends go ----

    /** The send side towards one destination. */
    private final class PeerTarget implements SendTarget {
        private final UdPeer peer;

        PeerTarget(UdPeer peer) {
            this.peer = peer;
        }

        @Override
        public EventLoop loop() {
            return loop;
        }

        @Override
        public Outbound outbound() {
            return outbound;
        }

        @Override
        public boolean bufferAvailable(Object item, Runnable whenFree) {
            Datagram d = datagram;
            dev.ibex.cm.buffer.BufferPool p = d == null ? null : d.pool();
            if (p == null || p.canAcquire()) {
                return true;
            }
            p.whenFree(whenFree);
            return false;
        }

        @Override
        public int post(Object item, long attachment) {
            Datagram d = datagram;
            Buffer b;
            try {
                b = d.allocate();
            } catch (RuntimeException e) {
                Payloads.discard(item, Context.empty());
                throw e;
            }
            try {
                int len = Payloads.copy(item, b);
                if (item instanceof WithImmediate w) {
                    d.sendWithImm(peer, b, 0, len, w.immData(), attachment);
                } else if (item instanceof Message m && m.hasImmData()) {
                    d.sendWithImm(peer, b, 0, len, m.immData(), attachment);
                } else {
                    d.send(peer, b, 0, len, attachment);
                }
                RdmaDatagramMetrics r = meters;
                if (r != null) {
                    r.recordDataSent(len);
                }
                return len;
            } catch (RuntimeException e) {
                b.release();
                throw e;
            }
        }
    }

    // ---- DatagramHandler (loop thread) ----

    @Override
    public void onBound(Datagram d) {
        datagram = d;
        meters();
        if (group == null) {
            setupDone(this);
        } else if (setupState.get() == PENDING) {
            membership = d.join(group, sendOnly);
        }
    }

    @Override
    public void onJoined(Datagram d, Membership m) {
        membership = m; // the one join of this endpoint (it may report before d.join returns)
        setupDone(membershipView);
    }

    @Override
    public void onMembershipError(Datagram d, Membership m, Throwable error) {
        if (setupState.get() == PENDING) {
            setupFailed(error);
        } else {
            countError();
            inbound.fail(error);
            outbound.close(error);
        }
        d.close();
    }

    @Override
    public void onMessage(Datagram d, Buffer message) {
        inbound.offer(message);
    }

    @Override
    public void onComplete(Datagram d, long attachment) {
        outbound.completed(attachment);
    }

    @Override
    public void onFailed(Datagram d, long attachment, RdmaException error) {
        if (!(error instanceof dev.ibex.cm.endpoint.WorkCompletionException w && w.isFlush())) {
            countError();
        }
        outbound.failed(attachment, error);
    }

    @Override
    public void onWritabilityChanged(Datagram d, boolean writable) {
        outbound.grant();
    }

    @Override
    public void onResolved(Datagram d, UdPeer peer) {
        PendingResolve p = take(peer.remoteAddress());
        if (p == null || p.cancelled().get()) {
            peer.close(); // nobody wants it any more: its address handle goes now
            return;
        }
        p.sink().success(peer);
    }

    @Override
    public void onResolveFailed(Datagram d, InetSocketAddress remote, Throwable error) {
        PendingResolve p = take(remote);
        if (p != null) {
            p.sink().error(error);
        }
    }

    private PendingResolve take(InetSocketAddress remote) {
        for (Iterator<PendingResolve> it = resolves.iterator(); it.hasNext(); ) {
            PendingResolve p = it.next();
            if (p.remote().equals(remote)) {
                it.remove();
                return p;
            }
        }
        return null;
    }

    @Override
    public void onRequest(Datagram d, DatagramRequest request) {
        if (policy == null) {
            request.reject(null);
            return;
        }
        AtomicBoolean answered = new AtomicBoolean();
        Consumer<AcceptDecision> answer = decision -> {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            try {
                switch (decision) {
                    case AcceptDecision.Accept a -> request.accept(a.privateData());
                    case AcceptDecision.Reject r -> request.reject(r.privateData());
                }
            } catch (RuntimeException e) {
                loop.reportUncaught(e);
                request.reject(null);
            }
        };
        try {
            Mono.from(policy.apply(request)).subscribe(answer, e -> answer.accept(AcceptDecision.reject()),
                    () -> answer.accept(AcceptDecision.reject()));
        } catch (RuntimeException e) {
            answer.accept(AcceptDecision.reject());
        }
    }

    @Override
    public void onError(Datagram d, Throwable error) {
        if (setupState.get() == PENDING) {
            setupFailed(error);
        } else {
            countError();
        }
        inbound.fail(error);
        outbound.close(error);
    }

    @Override
    public void onClosed(Datagram d) {
        closed = true;
        IllegalStateException gone = new IllegalStateException(this + " is closed");
        setupFailed(gone);
        RdmaDatagramMetrics r = meters;
        if (r != null) {
            meters = RdmaDatagramMetrics.NONE; // closed once; late calls record nothing
            r.closed();
        }
        outbound.close(gone);
        inbound.finish();
        inbound.closeUnsubscribed();
        List<PendingResolve> pending = new ArrayList<>(resolves);
        resolves.clear();
        for (PendingResolve p : pending) {
            p.sink().error(gone);
        }
        disposed.tryEmitEmpty();
    }

    private void onLoop(Runnable r, Consumer<Throwable> gone) {
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
        Datagram d = datagram;
        String where = d == null || d.localAddress() == null ? "unbound" : d.localAddress().toString();
        return group == null ? "DatagramEndpoint[" + where + "]" : "RdmaMembership[" + group + " at " + where + "]";
    }

    // ---- the membership face ----

    private final class MembershipView implements RdmaMembership {
        @Override
        public InetSocketAddress group() {
            return group;
        }

        @Override
        public boolean isSendOnly() {
            return sendOnly;
        }

        @Override
        public Flux<DatagramMessage> receive() {
            return inbound;
        }

        @Override
        public Mono<Void> send(Publisher<?> datagrams) {
            Objects.requireNonNull(datagrams, "datagrams");
            Membership m = membership;
            UdPeer peer = m == null ? null : m.peer();
            if (peer == null || m.state() != MembershipState.JOINED) {
                return Mono.error(new IllegalStateException(ReactiveDatagram.this + " is not joined"));
            }
            return ReactiveDatagram.this.send(peer, datagrams);
        }

        @Override
        public long drops() {
            return lost();
        }

        @Override
        public Mono<Void> leave() {
            return Mono.defer(() -> {
                dispose();
                return onDispose();
            });
        }

        @Override
        public EventLoop loop() {
            return loop;
        }

        @Override
        public DatagramEndpoint endpoint() {
            return ReactiveDatagram.this;
        }

        @Override
        public Mono<Void> onDispose() {
            return disposed.asMono();
        }

        @Override
        public void dispose() {
            ReactiveDatagram.this.dispose();
        }

        @Override
        public boolean isDisposed() {
            return ReactiveDatagram.this.isDisposed();
        }

        @Override
        public String toString() {
            return ReactiveDatagram.this.toString();
        }
    }
}
