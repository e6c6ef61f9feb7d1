package dev.ibex.bench.scale;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The baseline of the scale benchmark's setup rate: TCP connect/accept on loopback, served as the Ibex echo server
 * is — one thread, non-blocking, each connection echoing what it reads. Started and closed from any thread; the
 * sockets are the server thread's.
 */
final class TcpEchoServer implements AutoCloseable {
    private final ServerSocketChannel listener;
    private final Selector selector;
    private final Thread thread;
    private final AtomicInteger open = new AtomicInteger();
    private volatile boolean closed;

    private TcpEchoServer(ServerSocketChannel listener, Selector selector) {
        this.listener = listener;
        this.selector = selector;
        this.thread = Thread.ofPlatform().name("tcp-echo").daemon(true).start(this::run);
    }

    static TcpEchoServer start(String host) throws IOException {
        ServerSocketChannel l = ServerSocketChannel.open();
        l.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        l.bind(new InetSocketAddress(InetAddress.getByName(host), 0), 4096);
        l.configureBlocking(false);
        Selector s = Selector.open();
        l.register(s, SelectionKey.OP_ACCEPT);
        return new TcpEchoServer(l, s);
    }

    int port() {
        return listener.socket().getLocalPort();
    }

    /** Connections open now. */
    int open() {
        return open.get();
    }

    private void run() {
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        try {
            while (!closed) {
                selector.select(key -> {
                    try {
                        if (key.isAcceptable()) {
                            for (SocketChannel c; (c = listener.accept()) != null; ) {
                                c.configureBlocking(false);
                                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                                c.register(selector, SelectionKey.OP_READ);
                                open.incrementAndGet();
                            }
                        } else if (key.isReadable()) {
                            SocketChannel c = (SocketChannel) key.channel();
                            buf.clear();
                            int n = c.read(buf);
                            if (n < 0) {
                                key.cancel();
                                c.close();
                                open.decrementAndGet();
                            } else if (n > 0) {
                                buf.flip();
                                while (buf.hasRemaining()) {
                                    c.write(buf); // small echoes fit the send buffer
                                }
                            }
                        }
                    } catch (IOException e) {
                        key.cancel();
                        try {
                            key.channel().close();
                        } catch (IOException ignored) {
                            // closing anyway
                        }
                        if (key.channel() instanceof SocketChannel) {
                            open.decrementAndGet();
                        }
                    }
                });
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            // closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        selector.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey k : selector.keys()) {
            k.channel().close();
        }
        selector.close();
        listener.close();
    }
}
