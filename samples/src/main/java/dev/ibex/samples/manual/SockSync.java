package dev.ibex.samples.manual;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The RC example's socket operations: {@code sock_connect} (the client connects to the server's TCP port; the
 * server listens on every address and accepts one connection) and {@code sock_sync_data} (write ours, then read
 * exactly as many bytes of theirs). Blocking, bounded by the run's {@link Deadline}. Threading: one thread.
 */
final class SockSync implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Deadline deadline;

    private SockSync(Socket socket, Deadline deadline) throws IOException {
        this.socket = socket;
        this.deadline = deadline;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** The client's {@code sock_connect(servername, port)}. */
    static SockSync connect(String host, int port, Deadline deadline) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), deadline.socketMillis());
            return new SockSync(s, deadline);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * The server's {@code sock_connect(NULL, port)}: listen on {@code INADDR_ANY}, tell {@code listening} (which
     * prints the waiting line: a client started after it finds the port open), accept one, stop listening.
     */
    static SockSync accept(int port, Deadline deadline, Runnable listening) throws IOException {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(port), 1);
            listening.run();
            listener.setSoTimeout(deadline.socketMillis());
            return new SockSync(listener.accept(), deadline);
        }
    }

    /** {@code sock_sync_data}: sends {@code local}, returns the peer's bytes of the same length. */
    byte[] sync(byte[] local) throws IOException {
        out.write(local);
        out.flush();
        byte[] remote = new byte[local.length];
        socket.setSoTimeout(deadline.socketMillis());
        in.readFully(remote);
        return remote;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
