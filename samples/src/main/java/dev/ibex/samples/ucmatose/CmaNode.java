package dev.ibex.samples.ucmatose;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.endpoint.WorkCompletionException;

/**
 * One of ucmatose's connections ({@code struct cmatest_node}): counts the messages it has received and the sends
 * that completed, and sends its share as fast as the send queue allows. Tells its {@link CmaTest} about every
 * step; all on the run's loop.
 */
final class CmaNode implements ConnectionHandler {
    private final CmaTest test;
    private final int id;
    private final int size;
    private Connection connection;
    private boolean established;
    private boolean closed;
    private int toSend;
    private int sendsCompleted;
    private int received;

    CmaNode(CmaTest test, int id, int size) {
        this.test = test;
        this.id = id;
        this.size = size;
    }

    int id() {
        return id;
    }

    boolean isEstablished() {
        return established;
    }

    boolean isClosed() {
        return closed;
    }

    int received() {
        return received;
    }

    int sendsCompleted() {
        return sendsCompleted;
    }

    /** Queues {@code count} sends of the message size; they go out as send-queue slots free up. */
    void send(int count) {
        toSend += count;
        pump();
    }

    private void pump() {
        while (toSend > 0 && connection.writableSlots() > 0) {
            Buffer b = connection.allocate();
            connection.send(b, size, id);
            toSend--;
        }
    }

    /** Starts closing ({@code rdma_disconnect}). */
    void disconnect() {
        if (connection != null) {
            connection.close();
        }
    }

    @Override
    public void onEstablished(Connection c) {
        connection = c;
        established = true;
        test.established(this);
    }

    @Override
    public void onMessage(Connection c, Buffer message) {
        message.release();
        received++;
        test.progress();
    }

    @Override
    public void onComplete(Connection c, Operation op, long attachment) {
        sendsCompleted++;
        test.progress();
    }

    @Override
    public void onWritabilityChanged(Connection c, boolean writable) {
        if (writable) {
            pump();
        }
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
        if (!(error instanceof WorkCompletionException w && w.isFlush())) {
            test.failed(this, error);
        }
    }

    @Override
    public void onDisconnected(Connection c) {
        test.disconnected(this);
    }

    @Override
    public void onError(Connection c, Throwable error) {
        test.failed(this, error);
    }

    @Override
    public void onClosed(Connection c) {
        closed = true;
        test.closed(this);
    }
}
