package dev.ibex.cm.endpoint;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopEndpoint;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.DeviceContext;

/**
 * What the event loop calls on a {@link Listener}: the listening id's CM events (CONNECT_REQUEST among them, into
 * {@link ListenerTable}) and shutdown. The registration and the id carry this object as their context, so none of
 * it is on the listener's public surface. Runs on the listener's loop thread only.
 */
final class ListenerEvents implements LoopEndpoint {
    private final Listener l;

    ListenerEvents(Listener l) {
        this.l = l;
    }

    @Override
    public EventLoop loop() {
        return l.loop();
    }

    @Override
    public DeviceContext device() {
        return l.device();
    }

    @Override
    public void onCmEvent(CmEvent event) {
        l.input(Input.of(event.type()), event);
    }

    @Override
    public void close() {
        l.close();
    }

    @Override
    public void abort() {
        l.abort();
    }

    @Override
    public String toString() {
        return l.toString();
    }
}
