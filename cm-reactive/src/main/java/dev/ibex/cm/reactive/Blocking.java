package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;

/** Guards the blocking conveniences ({@code connectNow}, {@code bindNow}, {@code disposeNow}). */
final class Blocking {
    private Blocking() {}

    /** @throws IllegalStateException on an event loop thread, where blocking would stall (or deadlock) the loop */
    static void check(String what) {
        if (EventLoop.isLoopThread(Thread.currentThread())) {
            throw new IllegalStateException(what + " blocks and must not be called on an event loop thread ("
                    + Thread.currentThread().getName() + "); use the Mono instead");
        }
    }
}
