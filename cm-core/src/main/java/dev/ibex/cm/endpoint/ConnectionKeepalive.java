package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.ESTABLISHED;
import static dev.ibex.cm.endpoint.Connection.LOG;

/**
 * A connection's wiring to its {@link Keepalive} ({@link ConnectionOptions#withKeepalive}): started once
 * established, stopped on the way out, told of every successful completion (an error or a flush proves nothing of
 * the peer) and of its probes' outcome, and the {@link Keepalive.Probe} that posts a probe on the send queue and
 * fails the connection when the peer stays silent. Loop-confined.
 */
final class ConnectionKeepalive implements Keepalive.Probe {
    private final Connection c;
    /** Running while established with keepalive on; {@code null} otherwise. */
    private Keepalive keepalive;

    ConnectionKeepalive(Connection c) {
        this.c = c;
    }

    /** Established: starts probing, if the options ask for it. */
    void start() {
        ConnectionOptions o = c.options;
        if (o.keepalive()) {
            keepalive = new Keepalive(c.loop, this, o.keepaliveInterval(), o.keepaliveCount(), c.remote);
            keepalive.start();
        }
    }

    void stop() {
        if (keepalive != null) {
            keepalive.stop();
            keepalive = null;
        }
    }

    /** A successful completion: the peer is alive. */
    void activity() {
        if (keepalive != null) {
            keepalive.activity();
        }
    }

    /** A probe completed ({@code answered}) or failed. */
    void probeDone(boolean answered) {
        if (keepalive != null) {
            keepalive.probeDone(answered);
        }
    }

    /** Probes sent so far (0 without keepalive). */
    long probes() {
        Keepalive k = keepalive;
        return k == null ? 0 : k.probes();
    }

    @Override
    public int outstanding() {
        return c.sq == null ? 0 : c.sq.outstanding();
    }

    @Override
    public boolean probe() {
        return c.state == ESTABLISHED && c.sq != null && c.sq.probe();
    }

    @Override
    public void expired(ConnectionFailedException error) {
        if (c.state == ESTABLISHED) {
            LOG.warn("{}: {}", c, error.getMessage());
            c.machine.fatal(error);
        }
    }
}
