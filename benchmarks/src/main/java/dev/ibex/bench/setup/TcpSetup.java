package dev.ibex.bench.setup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * The TCP baseline: connect/accept on loopback with {@code java.nio}. The server is a thread accepting on a blocking
 * {@link ServerSocketChannel} (backlog 1,024, as Ibex's listener) and holding what it accepted until the run ends; the
 * client connects from its own address, blocking one at a time ({@link #sequential}) or non-blocking from one
 * {@link Selector} with a window of connects in flight ({@link #concurrent}). "Established" is the client's
 * {@code finishConnect}: the kernel's three-way handshake done, which is all TCP's connect waits for.
 *
 * <p><b>Threading.</b> One driving thread runs the client; the accepting thread is the server.
 */
public final class TcpSetup implements SetupSide {
    /** Longest a run may wait for the server to have accepted every connection. */
    private static final long ACCEPT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ServerSocketChannel server;
    private final InetSocketAddress serverAddress;
    private final InetAddress clientAddress;
    private final Thread acceptor;
    private final List<SocketChannel> accepted = new ArrayList<>();
    private final AtomicInteger acceptedCount = new AtomicInteger();

    private TcpSetup(ServerSocketChannel server, InetAddress clientAddress) throws IOException {
        this.server = server;
        this.serverAddress = (InetSocketAddress) server.getLocalAddress();
        this.clientAddress = clientAddress;
        this.acceptor = Thread.ofPlatform().daemon().name("tcp-accept").start(this::accept);
    }

    /** Listens on {@code serverAddress} (an ephemeral port); the client connects from {@code clientAddress}. */
    public static TcpSetup open(InetAddress serverAddress, InetAddress clientAddress) {
        try {
            ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.INET)
                    .bind(new InetSocketAddress(serverAddress, 0), 1024);
            return new TcpSetup(s, clientAddress);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for the TCP setup baseline", e);
        }
    }

    private void accept() {
        try {
            while (true) {
                SocketChannel c = server.accept();
                synchronized (accepted) {
                    accepted.add(c);
                }
                acceptedCount.incrementAndGet();
            }
        } catch (ClosedChannelException closed) {
            // done
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Histogram sequential(int n) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        int before = acceptedCount.get();
        try {
            for (int i = 0; i < n; i++) {
                try (SocketChannel c = client()) {
                    long t0 = System.nanoTime();
                    c.connect(serverAddress);
                    h.recordValue(System.nanoTime() - t0);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("TCP connect failed", e);
        }
        closeAccepted(before + n);
        return h;
    }

    @Override
    public long concurrent(int n, int inFlight) {
        int before = acceptedCount.get();
        List<SocketChannel> open = new ArrayList<>(n);
        long nanos;
        try (Selector selector = Selector.open()) {
            int started = 0;
            int established = 0;
            long t0 = System.nanoTime();
            while (established < n) {
                while (started < n && started - established < inFlight) {
                    SocketChannel c = client();
                    open.add(c);
                    started++;
                    c.configureBlocking(false);
                    if (c.connect(serverAddress)) {
                        established++; // loopback may connect at once
                    } else {
                        c.register(selector, SelectionKey.OP_CONNECT);
                    }
                }
                if (established == n) {
                    break;
                }
                selector.select();
                for (SelectionKey k : selector.selectedKeys()) {
                    if (((SocketChannel) k.channel()).finishConnect()) {
                        k.cancel();
                        established++;
                    }
                }
                selector.selectedKeys().clear();
            }
            nanos = System.nanoTime() - t0;
        } catch (IOException e) {
            throw new UncheckedIOException("TCP connect failed", e);
        } finally {
            for (SocketChannel c : open) {
                closeQuietly(c);
            }
        }
        closeAccepted(before + n);
        return nanos;
    }

    /**
     * A client socket bound to the client's address. It closes with a reset (linger 0): no TIME_WAIT is left on
     * either side, so the thousands of connections of a run cannot use up the client address's ephemeral ports for
     * the next runs (four runs in a row left 11,000 in TIME_WAIT, and the fourth measured TCP at 190
     * connections/s). Closing is not timed.
     */
    private SocketChannel client() throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.INET);
        try {
            c.setOption(StandardSocketOptions.SO_LINGER, 0);
            c.bind(new InetSocketAddress(clientAddress, 0));
            return c;
        } catch (IOException | RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /** Waits (bounded) until the server accepted {@code total} in all, then closes what it accepted. */
    private void closeAccepted(int total) {
        long deadline = System.nanoTime() + ACCEPT_WAIT_NANOS;
        while (acceptedCount.get() < total) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the TCP server accepted " + acceptedCount.get() + " of " + total);
            }
            Thread.onSpinWait();
        }
        synchronized (accepted) {
            accepted.forEach(TcpSetup::closeQuietly);
            accepted.clear();
        }
    }

    @Override
    public void close() {
        closeQuietly(server);
        try {
            acceptor.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (accepted) {
            accepted.forEach(TcpSetup::closeQuietly);
            accepted.clear();
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
