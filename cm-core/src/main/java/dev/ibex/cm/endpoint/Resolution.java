package dev.ibex.cm.endpoint;

import dev.ibex.cm.endpoint.ResolutionTable.Action;
import dev.ibex.cm.endpoint.ResolutionTable.State;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopEndpoint;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.PortSpace;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A SIDR exchange with its own UDP id: resolving a remote UD service (active: address, route, SIDR request, answer)
 * or answering a SIDR request (passive: accept with this datagram's QP number, or reject). Driven by
 * {@link ResolutionTable}; the id is destroyed when it ends.
 */
final class Resolution implements LoopEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(Resolution.class);
    private static final byte[] NONE = new byte[0];

    private final Datagram datagram;
    private final EventLoop loop;
    private final InetSocketAddress remote;
    private State state;
    private CmId id;
    private int handle = -1;
    private ScheduledTask timer;
    private byte[] outData = NONE;
    private byte[] peerData = NONE;
    private boolean released;

    private Resolution(Datagram datagram, InetSocketAddress remote, State initial) {
        this.datagram = datagram;
        this.loop = datagram.loop();
        this.remote = remote;
        this.state = initial;
    }

    /** Active: a resolution in IDLE with its id (loop thread). */
    static Resolution active(Datagram d, InetSocketAddress remote, byte[] privateData) {
        Resolution r = new Resolution(d, remote, State.IDLE);
        r.outData = privateData;
        r.handle = r.loop.register(r);
        r.id = r.loop.cmChannel().createId(PortSpace.UDP, r);
        return r;
    }

    /** Passive: a SIDR request that arrived at {@code d} (loop thread). */
    static Resolution requested(Datagram d, CmEvent e, Duration timeout) {
        Resolution r = new Resolution(d, e.id().peerAddress(), State.REQUESTED);
        r.id = e.id();
        r.id.context(r);
        r.peerData = e.privateData();
        r.handle = r.loop.register(r);
        r.arm(timeout);
        return r;
    }

    State state() {
        return state;
    }

    CmId cmId() {
        return id;
    }

    InetSocketAddress remote() {
        return remote;
    }

    byte[] peerData() {
        return peerData.clone();
    }

    void answer(Input in, byte[] data) {
        loop.run(() -> {
            if (state == State.REQUESTED) {
                outData = data;
                input(in, null);
            }
        });
    }

    void input(Input in, CmEvent e) {
        State from = state;
        StateTable.Transition<State, Action> t = ResolutionTable.TABLE.at(from, in);
        if (t.action() == Action.REFUSE) {
            throw new IllegalStateException("cannot " + in.name().toLowerCase() + " a resolution that is " + from);
        }
        if (t.action() == Action.NONE) {
            return;
        }
        state = t.next();
        try {
            switch (t.action()) {
                case RESOLVE_ADDR -> {
                    arm(datagram.options().deadline());
                    InetSocketAddress local = datagram.localAddress();
                    id.resolveAddr(local == null ? null : new InetSocketAddress(local.getAddress(), 0), remote,
                            datagram.options().resolveTimeoutMs());
                }
                case RESOLVE_ROUTE -> id.resolveRoute(datagram.options().resolveTimeoutMs());
                case CONNECT -> id.connect(new ConnParam(outData, 0, 0, false, 0, 0, false, 0));
                case RESOLVED -> {
                    release();
                    datagram.resolved(this, e.ud());
                }
                case ACCEPT -> {
                    id.accept(new ConnParam(outData, 0, 0, false, 0, 0, false, datagram.qpNum()));
                    release();
                }
                case REJECT -> {
                    id.reject(outData);
                    release();
                }
                case FAIL -> {
                    if (from == State.REQUESTED && in != Input.REJECTED) {
                        try {
                            id.reject(NONE);
                        } catch (RuntimeException ignored) {
                            // destroying the id tells the peer as well
                        }
                    }
                    release();
                    if (from != State.REQUESTED) {
                        datagram.resolveFailed(this, Failures.of(in, e, remote, true, null));
                    }
                }
                case REJECT_REQUEST -> EventLoop.rejectStray(e.id());
                case NONE, REFUSE -> throw new AssertionError();
            }
        } catch (RuntimeException ex) {
            boolean reported = state == State.CLOSED && t.action() != Action.ACCEPT && t.action() != Action.REJECT;
            state = State.CLOSED;
            release();
            if (from != State.REQUESTED && !reported) {
                datagram.resolveFailed(this, Failures.refused(dev.ibex.cm.RdmaConnectException.Reason.CONNECT_ERROR,
                        ex, remote, true));
            } else {
                LOG.warn("SIDR exchange with {}: {}", remote, ex.toString());
            }
        }
    }

    private void arm(Duration d) {
        cancel();
        timer = loop.schedule(() -> {
            timer = null;
            input(Input.TIMEOUT, null);
        }, d.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void release() {
        if (released) {
            return;
        }
        released = true;
        cancel();
        if (id != null) {
            id.close();
        }
        if (handle >= 0) {
            loop.unregister(handle, this);
            handle = -1;
        }
        datagram.ended(this);
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public void onCmEvent(CmEvent event) {
        input(Input.of(event.type()), event);
    }

    @Override
    public void close() {
        loop.run(() -> input(Input.CLOSE, null));
    }

    @Override
    public void abort() {
        if (state != State.CLOSED) {
            state = State.CLOSED;
            release();
        }
    }
}
