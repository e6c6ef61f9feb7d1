package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopEndpoint;
import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.WcStatus;

/**
 * What the event loop and the connection's {@link SendQueue} call: the connection's CM events (into the
 * {@link ConnectionMachine}), its work completions (receives to the {@link ReceivePath}, sends to the send queue,
 * then what waited for a slot), async events of its QP, CQ, SRQ, port and device, shutdown, and the send queue's
 * reports of each operation. The connection's registration, CM id and QP carry this object as their context, so
 * none of it is on {@link Connection}'s public surface. Runs on the connection's loop thread only, like every
 * {@link LoopEndpoint}.
 */
final class ConnectionEvents implements LoopEndpoint, SendQueue.Owner {
    private final Connection c;

    ConnectionEvents(Connection c) {
        this.c = c;
    }

    // ---- LoopEndpoint ----

    @Override
    public EventLoop loop() {
        return c.loop;
    }

    @Override
    public DeviceContext device() {
        return c.device();
    }

    @Override
    public void onCmEvent(CmEvent event) {
        c.machine.input(Input.of(event.type()), event);
    }

    @Override
    public void onCompletion(CompletionBatch wc, int i, int kind, int slot) {
        if (wc.statusCode(i) == 0) {
            c.keepalive.activity(); // (an error or a flush proves nothing of the peer)
        }
        if (kind == WrId.RECV || kind == WrId.SRQ_RECV) {
            c.receive.received(wc, i, kind, slot);
        } else if (c.sq != null) {
            WcStatus status = wc.status(i);
            c.sq.complete(slot, kind, status, wc.vendorErr(i));
            if (status != WcStatus.SUCCESS && status != WcStatus.WR_FLUSH_ERR && c.state == ESTABLISHED) {
                // whatever failed (the owner of each kind may not have ended the connection: a credit update, a
                // probe), the QP is in error now and everything after it is flushed (IBA 10.8.3.3): nothing else
                // would ever report this connection's end
                c.machine.fatal(new WorkCompletionException(null, status, wc.vendorErr(i)));
            }
            c.send.slotsFreed();
        }
        c.teardown.checkDrained();
    }

    @Override
    public void onAsyncEvent(AsyncEvent e) {
        AsyncEventType t = e.type();
        boolean mine = switch (t.element()) {
            case QP -> e.qp() != null && e.qp() == c.qp;
            case CQ -> e.cq() != null && e.cq() == c.cq;
            case SRQ -> c.device != null && e.srq() != null && e.srq() == c.device.srq();
            case PORT, DEVICE -> true;
        };
        if (!mine || c.state == CLOSED) {
            return;
        }
        switch (t) {
            case PATH_MIG -> c.paths.migrated();
            case PATH_MIG_ERR -> c.paths.migrationError();
            case COMM_EST -> {
                if (c.state == CONNECTING) {
                    c.quietly("rdma_notify", () -> c.id.notify(AsyncEventType.COMM_EST));
                }
            }
            case QP_LAST_WQE_REACHED -> c.teardown.checkDrained();
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, CQ_ERR, SRQ_ERR, DEVICE_FATAL ->
                    c.machine.fatal(ConnectionFailedException.fatalEvent(c.remote, t, c.device().device().name()));
            case SQ_DRAINED -> { }
            default -> c.safely(() -> c.handler.onDeviceEvent(c, e));
        }
    }

    @Override
    public void close() {
        c.close();
    }

    @Override
    public void abort() {
        c.teardown.abort();
    }

    // ---- SendQueue.Owner ----

    @Override
    public void completed(Operation op, long attachment) {
        try {
            c.handler.onComplete(c, op, attachment);
        } catch (Throwable t) {
            c.loop.reportUncaught(t);
        }
    }

    @Override
    public void failed(Operation op, long attachment, RdmaException error) {
        try {
            c.handler.onFailed(c, op, attachment, error);
        } catch (Throwable t) {
            c.loop.reportUncaught(t);
        }
        c.machine.failedUnlessFlushed(error);
    }

    @Override
    public void writabilityChanged(boolean writable) {
        c.send.updateWritability();
    }

    @Override
    public void postFailed(RdmaException error) {
        if (c.state == ESTABLISHED) {
            c.machine.fatal(error);
        }
    }

    @Override
    public void probeDone(RdmaException error) {
        c.keepalive.probeDone(error == null);
        c.machine.failedUnlessFlushed(error);
    }

    @Override
    public void exposureStep(Operation op, Exposure e, RdmaException error) {
        c.exposures.completed(op, e, error);
        c.machine.failedUnlessFlushed(error); // a failed bind or invalidate leaves the QP in error
    }

    @Override
    public void creditUpdateDone(int count, RdmaException error) {
        c.machine.failedUnlessFlushed(error); // the peer is gone or broke the protocol: all later work flushes
    }

    @Override
    public void flushing() {
        c.send.flushing();
    }

    @Override
    public void fragmentDone(RdmaException error) {
        c.machine.failedUnlessFlushed(error); // the message's last fragment will be flushed: reported there
    }

    @Override
    public void rendezvousReadDone(RdmaException error) {
        c.rendezvous.readDone(error);
        c.machine.failedUnlessFlushed(error); // the peer's keys failed (REM_ACCESS_ERR) or it is gone
    }

    /** The connection's own description: this object is what the loop's logs and the provider's contexts name. */
    @Override
    public String toString() {
        return c.toString();
    }
}
