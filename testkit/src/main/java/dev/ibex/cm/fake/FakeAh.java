package dev.ibex.cm.fake;

import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;

/** An address handle: its handle value indexes the fabric's table. */
final class FakeAh implements AddressHandle {
    private final FakePd pd;
    private final AhAttr attr;
    private final long handle;
    private boolean closed;

    FakeAh(FakePd pd, AhAttr attr, long handle) {
        this.pd = pd;
        this.attr = attr;
        this.handle = handle;
    }

    @Override public long handle() { return handle; }
    @Override public AhAttr attr() { return attr; }

    @Override
    public void close() {
        FakeFabric f = pd.device().fabric();
        synchronized (f.lock) {
            if (closed) {
                return;
            }
            closed = true;
            f.ahs.remove(handle);
            pd.children--;
        }
        f.tracker.closed(this);
    }
}
