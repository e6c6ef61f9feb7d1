package dev.ibex.rsocket;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.endpoint.ConnectionFailedException;
import dev.ibex.cm.endpoint.WorkCompletionException;
import dev.ibex.cm.reactive.RdmaConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.frame.ErrorFrameCodec;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * An RSocket {@link DuplexConnection} over one Ibex RC connection: frames go out through a {@code FrameSender}
 * (one long-lived {@code send}, bounded by the send queue) and come in through a {@code FrameReceiver} (demand =
 * receive credit), split and joined by {@code MessageFraming}.
 *
 * <p>Life: {@code open} starts both directions and the {@code Handshake} hello; {@code ready()} emits once the
 * peer's hello arrived (its receive buffer size fixes the framing). {@link #dispose()} disconnects (frames still
 * queued are released, posted ones complete as flushed); {@link #sendErrorAndClose} sends an ERROR frame after what
 * is queued and disconnects once the peer has it (bounded by {@code closeTimeout}). {@link #onClose()} completes
 * when the RDMA connection is closed and everything released, or fails with the connection's error (RETRY_EXC_ERR
 * when the peer died and the transport's retries ran out, a
 * {@link FramingException}); RSocket 1.1 then fails what is outstanding with {@code ClosedChannelException}.
 *
 * <p><b>Threading.</b> Public methods from any thread; signals on the connection's event loop (RSocket's frame
 * handling runs there, as on a Netty event loop: it must not block).
 */
public final class RdmaDuplexConnection implements DuplexConnection {
    private final RdmaConnection connection;
    private final ByteBufAllocator alloc;
    private final Duration closeTimeout;
    private final FrameSender sender;
    private final FrameReceiver receiver;
    private final Sinks.One<RdmaDuplexConnection> ready = Sinks.one();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private volatile Throwable failure;

    private RdmaDuplexConnection(RdmaConnection connection, ByteBufAllocator alloc, Duration closeTimeout) {
        this.connection = connection;
        this.alloc = alloc;
        this.closeTimeout = closeTimeout;
        int ownBuffers = connection.loop().options().buffers().bufferSize();
        this.sender = new FrameSender(connection.loop(), Handshake.hello(ownBuffers));
        this.receiver = new FrameReceiver(connection.loop(), new MessageFraming.Assembler(alloc), m -> {
            int peerBuffers = Handshake.peerReceiveBuffer(m);
            sender.start(new MessageFraming(Math.min(ownBuffers, peerBuffers)));
            ready.tryEmitValue(this);
        }, this::fail);
    }

    /**
     * Starts RSocket framing on an established {@code connection}; call it on the connection's loop as soon as it is
     * established (a server's handler, a client's {@code connect()} {@code onNext}), so that nothing the peer sends
     * is missed.
     */
    static RdmaDuplexConnection open(RdmaConnection connection, ByteBufAllocator alloc, Duration closeTimeout) {
        RdmaDuplexConnection c = new RdmaDuplexConnection(connection, alloc, closeTimeout);
        connection.receive().subscribe(c.receiver);
        connection.send(c.sender).subscribe(null, c::sendFailed, c::sendCompleted);
        connection.onDispose().subscribe(null, null, c::closed);
        return c;
    }

    /**
     * Emits this connection once the peer's hello arrived, fails when it does not within {@code timeout} (the
     * connection is then disposed) or when the connection ends first.
     */
    Mono<RdmaDuplexConnection> ready(Duration timeout) {
        return ready.asMono()
                .timeout(timeout, Mono.error(() -> new TimeoutException("no RSocket-over-Ibex hello from "
                        + connection.remoteAddress() + " within " + timeout.toMillis() + " ms")))
                .doOnError(e -> dispose());
    }

    // ---- DuplexConnection ----

    @Override
    public void sendFrame(int streamId, ByteBuf frame) {
        sender.send(streamId, frame);
    }

    @Override
    public void sendErrorAndClose(RSocketErrorException e) {
        sender.sendLast(ErrorFrameCodec.encode(alloc, 0, e));
        // a peer that never takes the frame (no receive posted, RNR for ever) must not keep us open
        try {
            connection.loop().schedule(this::dispose, closeTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException gone) {
            dispose();
        }
    }

    @Override
    public Flux<ByteBuf> receive() {
        return receiver;
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public SocketAddress remoteAddress() {
        return connection.remoteAddress();
    }

    @Override
    public Mono<Void> onClose() {
        return closed.asMono();
    }

    @Override
    public void dispose() {
        connection.dispose();
    }

    @Override
    public boolean isDisposed() {
        return connection.isDisposed();
    }

    /**
     * The RDMA connection underneath (diagnostics: events, addresses, the loop).
     *
     * @return the Ibex connection this RSocket connection runs on
     */
    public RdmaConnection rdmaConnection() {
        return connection;
    }

    // ---- life (loop thread) ----

    private void sendCompleted() {
        // the final frame of sendErrorAndClose was posted and acknowledged
        dispose();
    }

    private void sendFailed(Throwable e) {
        if (e instanceof RdmaException && !(e instanceof WorkCompletionException w && w.isFlush())) {
            recordFailure(e); // e.g. the transport's retries ran out: the peer is gone
        }
        sender.close();
        dispose();
    }

    private void fail(Throwable e) {
        recordFailure(e);
        dispose();
    }

    /** The first failure wins, except that the connection's typed verdict replaces the failed operation's error. */
    private void recordFailure(Throwable e) {
        Throwable f = failure;
        if (f == null || (e instanceof ConnectionFailedException && !(f instanceof ConnectionFailedException))) {
            failure = e;
        }
    }

    private void closed() {
        sender.close();
        Throwable f = failure;
        ready.tryEmitError(f != null ? f : new ClosedChannelException()); // no-op once ready
        if (f != null) {
            closed.tryEmitError(f);
        } else {
            closed.tryEmitEmpty();
        }
    }

    @Override
    public String toString() {
        return "RdmaDuplexConnection[" + connection + "]";
    }
}
