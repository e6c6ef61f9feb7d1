package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;

/**
 * {@code ibv_ah}: a resolved UD destination. Its {@link #handle()} is what a send WR carries; the transport maps it
 * back with {@link SoftDevice#addressHandle(long)}.
 */
public final class SoftAddressHandle implements AddressHandle {
    private final SoftProtectionDomain pd;
    private final Route route;
    private final int index;
    private volatile boolean closed;

    SoftAddressHandle(SoftProtectionDomain pd, Route route) {
        this.pd = pd;
        this.route = route;
        this.index = pd.softDevice().registerAddressHandle(this);
        pd.addChild();
        pd.softDevice().tracker().opened(this);
    }

    @Override
    public long handle() {
        return index;
    }

    @Override
    public AhAttr attr() {
        return route.attr();
    }

    /** Where packets go and which local address they leave from. */
    public Route route() {
        return route;
    }

    public SoftProtectionDomain pd() {
        return pd;
    }

    int index() {
        return index;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        pd.softDevice().unregisterAddressHandle(this);
        pd.removeChild();
        pd.softDevice().tracker().closed(this);
    }
}
