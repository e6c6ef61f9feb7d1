package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.Datagram.LOG;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.VerbsAbi;

/**
 * A {@link Datagram}'s way to BOUND: its loop registration and CM id, the bind (the device, the port's MTU, the CQ,
 * the UD QP with its send and receive queues, refused when no receive could be posted, and listening for SIDR
 * requests when asked), then the admission of each SIDR request while it listens. Made once per endpoint.
 * Threading: the datagram's loop thread only.
 */
final class DatagramSetup {
    private final Datagram d;
    /** Whether the endpoint answers SIDR requests (set by the bind). */
    private boolean listening;

    DatagramSetup(Datagram d) {
        this.d = d;
    }

    /** Registers with the loop and creates the id; when that fails the endpoint is CLOSED, released and told. */
    boolean prepare() {
        try {
            d.handle = d.loop.register(d.events);
            d.id = d.loop.cmChannel().createId(PortSpace.UDP, d.events);
            return true;
        } catch (RuntimeException e) {
            d.state = DatagramState.CLOSED;
            d.release();
            d.safely(() -> d.handler.onError(d, e));
            d.safely(() -> d.handler.onClosed(d));
            return false;
        }
    }

    /** Binds the id and builds the UD QP and its queues on the id's device; throws what refuses the endpoint. */
    void bind() {
        DatagramOptions options = d.options();
        d.id.bind(d.address);
        d.localAddress = d.id.localAddress();
        d.device = d.loop.device(d.id.device());
        d.mtu = d.device.context().queryPort(d.id.portNum()).activeMtu().bytes();
        int depth = options.sendQueueDepth();
        int window = options.receiveWindow();
        if (d.device.pool().bufferSize() < VerbsAbi.GRH_SIZE + d.mtu) {
            LOG.warn("{}: buffers of {} bytes cannot take a full {}-byte datagram plus its 40-byte GRH", d,
                    d.device.pool().bufferSize(), d.mtu);
        }
        d.cqReserved = depth + window;
        d.cq = d.device.reserveCq(d.cqReserved);
        d.qp = d.id.createQp(d.device.pd(), new QpInitAttr(d.cq, d.cq, null, new QpCap(depth, window, 1, 1,
                options.maxInline()), QpType.UD, false, d.events));
        d.qp.context(d.events);
        d.countedQp = d.qp;
        d.sq = new SendQueue(d.loop, d.qp, d.handle, options.signalInterval(), 0, 0, d.events);
        d.rq = new ReceiveQueue(d.loop, d.qp, d.device.pool(), d.handle, window, VerbsAbi.GRH_SIZE);
        d.rq.flush();
        if (d.rq.posted() == 0) {
            // bound but deaf: refuse it rather than hand out an endpoint that hears nothing
            BufferPool.Options o = d.device.pool().options();
            throw new RdmaException("ibv_post_recv", Errno.ENOBUFS, d + ": no registered buffer is free for any of"
                    + " its " + window + " receives (" + d.device.pool() + ": " + d.device.pool().inUse() + " in use,"
                    + " at most " + o.maxBuffers() + "); release held messages, close idle endpoints, use smaller "
                    + "receive windows or raise BufferPool.Options.maxBuffers");
        }
        if (options.listen()) {
            d.id.listen(options.backlog());
            listening = true;
        }
        d.safely(() -> d.handler.onBound(d));
    }

    /** A SIDR request: rejected unless listening, else an exchange the handler accepts or rejects. */
    void request(CmEvent e) {
        if (!listening) {
            EventLoop.rejectStray(e.id());
            return;
        }
        Resolution r;
        try {
            r = Resolution.requested(d, e, d.options().requestTimeout());
        } catch (RuntimeException ex) {
            LOG.warn("{}: cannot take a SIDR request: {}", d, ex.toString());
            EventLoop.rejectStray(e.id());
            return;
        }
        d.exchanges.add(r);
        DatagramRequest req = new DatagramRequest(r);
        try {
            d.handler.onRequest(d, req);
        } catch (Throwable t) {
            d.loop.reportUncaught(t);
            req.reject(null);
        }
    }
}
