package dev.ibex.cm.loop;

import dev.ibex.cm.spi.MemoryWindow;

/**
 * A type 2 memory window of a {@link LoopDevice}, with the rkey of its latest binding: each binding advances the
 * consumer key (the low 8 bits), so a descriptor of an earlier binding of the same window never matches again (until
 * 256 bindings later). Loop-confined.
 */
public final class Window {
    private final MemoryWindow mw;
    private int rkey;

    Window(MemoryWindow mw) {
        this.mw = mw;
        this.rkey = mw.rkey();
    }

    /** {@return the provider's memory window, to bind and invalidate} */
    public MemoryWindow mw() {
        return mw;
    }

    /** {@return the rkey for the next binding, remembered as the window's latest} */
    public int nextRkey() {
        rkey = MemoryWindow.nextRkey(rkey);
        return rkey;
    }
}
