package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.Datagram.LOG;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferOwner;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopEndpoint;
import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcStatus;

/**
 * What the event loop, the send queue and the buffer pool call on a {@link Datagram}: its CM events (into
 * {@link DatagramTable}), its work completions (received datagrams, after the GRH, to the handler; sends to the send
 * queue), async events of its QP, CQ, port and device, shutdown, each send's outcome, and the application's release
 * of a received datagram (a receive is re-posted). The registration, the CM id and the QP carry this object as
 * their context, so none of it is on the datagram's public surface. Runs on the datagram's loop thread only.
 */
final class DatagramEvents implements LoopEndpoint, BufferOwner, SendQueue.Owner {
    private final Datagram d;

    DatagramEvents(Datagram d) {
        this.d = d;
    }

    // ---- LoopEndpoint ----

    @Override
    public EventLoop loop() {
        return d.loop;
    }

    @Override
    public DeviceContext device() {
        return d.device();
    }

    @Override
    public void onCmEvent(CmEvent event) {
        d.input(Input.of(event.type()), event);
    }

    @Override
    public void onCompletion(CompletionBatch wc, int i, int kind, int slot) {
        if (kind != WrId.RECV) {
            if (d.sq != null) {
                d.sq.complete(slot, kind, wc.status(i), wc.vendorErr(i));
            }
            return;
        }
        ReceiveQueue rq = d.rq;
        if (rq == null || rq.completed(slot) == null) {
            return;
        }
        Buffer b = d.device.pool().buffer(slot);
        if (!wc.isSuccess(i) || d.state != DatagramState.BOUND) {
            b.reclaim();
            b.release();
            rq.recycled();
            if (!wc.isSuccess(i) && wc.status(i) != WcStatus.WR_FLUSH_ERR) {
                LOG.debug("{}: a receive completed with {}", d, wc.status(i));
                if (d.state == DatagramState.BOUND) {
                    d.failedReceives = d.failedReceives + 1; // a datagram arrived and was lost: count it
                }
            }
            return;
        }
        int len = Math.max(0, wc.byteLen(i) - VerbsAbi.GRH_SIZE);
        b.deliver(VerbsAbi.GRH_SIZE, len, wc.flags(i), wc.immData(i), wc.srcQp(i), this);
        rq.handedOut();
        try {
            d.handler.onMessage(d, b);
        } catch (Throwable t) {
            d.loop.reportUncaught(t);
        }
    }

    @Override
    public void onAsyncEvent(AsyncEvent e) {
        AsyncEventType t = e.type();
        boolean mine = switch (t.element()) {
            case QP -> e.qp() != null && e.qp() == d.qp;
            case CQ -> e.cq() != null && e.cq() == d.cq;
            case SRQ -> false;
            case PORT, DEVICE -> true;
        };
        if (!mine || d.state != DatagramState.BOUND) {
            return;
        }
        switch (t) {
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, CQ_ERR, DEVICE_FATAL -> {
                d.fatal = new RdmaException("ibv_get_async_event", 0, t + ": the datagram endpoint cannot continue");
                d.input(Input.FATAL, null);
            }
            case SM_CHANGE, CLIENT_REREGISTER -> {
                LOG.info("{}: {}: multicast subscriptions may need to be joined again", d, t);
                d.safely(() -> d.handler.onDeviceEvent(d, e));
            }
            default -> d.safely(() -> d.handler.onDeviceEvent(d, e));
        }
    }

    @Override
    public void close() {
        d.close();
    }

    @Override
    public void abort() {
        d.abort();
    }

    // ---- BufferOwner ----

    @Override
    public void released(Buffer buffer) {
        if (d.rq != null) {
            d.rq.released();
        }
    }

    // ---- SendQueue.Owner ----

    @Override
    public void completed(Operation op, long attachment) {
        try {
            d.handler.onComplete(d, attachment);
        } catch (Throwable t) {
            d.loop.reportUncaught(t);
        }
    }

    @Override
    public void failed(Operation op, long attachment, RdmaException error) {
        try {
            d.handler.onFailed(d, attachment, error);
        } catch (Throwable t) {
            d.loop.reportUncaught(t);
        }
    }

    @Override
    public void writabilityChanged(boolean writable) {
        if (d.state == DatagramState.BOUND) {
            d.safely(() -> d.handler.onWritabilityChanged(d, writable));
        }
    }

    @Override
    public void postFailed(RdmaException error) {
        if (d.state == DatagramState.BOUND) {
            d.fatal = error;
            d.input(Input.FATAL, null);
        }
    }

    @Override
    public void exposureStep(Operation op, Exposure e, RdmaException error) {
        throw new AssertionError("UD endpoints expose no memory"); // memory windows are bound on RC QPs only
    }

    @Override
    public String toString() {
        return d.toString();
    }
}
