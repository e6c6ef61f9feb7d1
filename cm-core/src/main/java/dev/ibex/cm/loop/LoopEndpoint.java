package dev.ibex.cm.loop;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.DeviceContext;

/**
 * What an event loop dispatches to: an endpoint (or a helper with a CM id of its own) that lives on one loop.
 * It is the context of its CM ids and QPs, is {@link EventLoop#register registered} to own a range of work
 * request ids, and is closed when the loop shuts down. Every method runs on {@link #loop()}'s thread.
 */
public interface LoopEndpoint {

    /** {@return the loop the endpoint lives on (it changes once when an accepted connection moves to another loop)} */
    EventLoop loop();

    /**
     * A CM event for one of the endpoint's ids, already copied and acknowledged.
     *
     * @param event the event; the endpoint may keep it
     */
    void onCmEvent(CmEvent event);

    /**
     * A work completion whose {@link WrId} names this endpoint.
     *
     * @param wc the batch (valid only during the call)
     * @param i the completion's index in {@code wc}
     * @param kind {@link WrId#kind}
     * @param slot {@link WrId#slot}
     */
    default void onCompletion(CompletionBatch wc, int i, int kind, int slot) {}

    /**
     * An async event of the endpoint's QP, of a CQ or SRQ it uses, or of its device or a port of it. Ignored by
     * default.
     *
     * @param event the event
     */
    default void onAsyncEvent(AsyncEvent event) {}

    /** {@return the device whose port and device events concern the endpoint, or {@code null} (the default)} */
    default DeviceContext device() {
        return null;
    }

    /** Starts a graceful close (the loop is shutting down). */
    void close();

    /** Tears down at once: the shutdown deadline passed. Must leave the endpoint unregistered. */
    void abort();
}
