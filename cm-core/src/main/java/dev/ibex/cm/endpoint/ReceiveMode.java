package dev.ibex.cm.endpoint;

/** Where a reliable connection's receives come from. */
public enum ReceiveMode {
    /**
     * From the loop's shared receive queue (one per loop and device, {@link dev.ibex.cm.loop.LoopOptions#srqDepth()}),
     * so thousands of connections share one set of buffers. Between two Ibex ends, credits bound each sender: the
     * receiver grants {@link ConnectionOptions#receiveWindow()} messages and returns credits as its application
     * consumes them, so a slow consumer holds back its own sender only. A peer that does not speak credits gets a
     * {@link #WINDOW} when this end accepts; when this end connects, its receives stay shared and that peer's sends
     * are not bounded (say WINDOW for such a peer). Costs the application 8 bytes of private data.
     */
    SHARED,
    /**
     * A window of {@link ConnectionOptions#receiveWindow()} receives of the connection's own, re-posted as its
     * application releases messages: a slow consumer stops its sender with RNR. Interoperates with every peer;
     * costs the window's buffers per connection.
     */
    WINDOW
}
