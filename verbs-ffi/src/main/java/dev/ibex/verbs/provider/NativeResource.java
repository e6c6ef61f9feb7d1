package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.ResourceTracker;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every native object of the provider shares: registration with the fabric's
 * {@link ResourceTracker}, an open/closed state checked before each native call (so a closed object throws
 * {@link IllegalStateException} instead of touching freed memory), and an idempotent {@link #close()}.
 *
 * <p>When the native destroy fails (a PD still in use: EBUSY), the object stays open and the exception
 * propagates, as in verbs, so the caller can close the dependants and try again.
 */
abstract class NativeResource implements ResourceTracker.Tracked {
    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int CLOSED = 2;

    final NativeFabric fabric;
    private final AtomicInteger state = new AtomicInteger(OPEN);

    NativeResource(NativeFabric fabric) {
        this.fabric = fabric;
    }

    /** Call once the native object exists. */
    final void tracked() {
        fabric.tracker().opened(this);
        NativeDeviceContext owner = owner();
        if (owner != null) {
            owner.childOpened();
        }
    }

    /**
     * The device context this object was made on directly (a PD, CQ or completion channel; everything else hangs off
     * a PD), or {@code null}: a removed device is let go once it has none of these left.
     */
    NativeDeviceContext owner() {
        return null;
    }

    final boolean isOpen() {
        return state.get() == OPEN;
    }

    /** @throws IllegalStateException when closed (or closing) */
    final void ensureOpen() {
        if (state.get() != OPEN) {
            throw new IllegalStateException(describe() + " is closed");
        }
    }

    /** A short name for messages, e.g. "QP 0x11". */
    abstract String describe();

    /** Destroys the native object (and the children it owns). Runs at most once per successful close. */
    abstract void destroy();

    @Override
    public String toString() {
        return describe();
    }

    @Override
    public final void close() {
        if (!state.compareAndSet(OPEN, CLOSING)) {
            return;
        }
        try {
            destroy();
        } catch (RuntimeException | Error e) {
            state.set(OPEN);
            throw e;
        }
        state.set(CLOSED);
        fabric.tracker().closed(this);
        NativeDeviceContext owner = owner();
        if (owner != null) {
            owner.childClosed();
        }
    }
}
