package dev.ibex.cm.fake;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import java.lang.foreign.MemorySegment;

/** Registered memory: one key serves as lkey and rkey. */
final class FakeMr implements MemoryRegion {
    private final FakePd pd;
    private final MemorySegment segment;
    private final int access;
    private final int key;
    private boolean closed;

    FakeMr(FakePd pd, MemorySegment segment, int access, int key) {
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.key = key;
    }

    @Override public ProtectionDomain pd() { return pd; }
    @Override public MemorySegment segment() { return segment; }
    @Override public long address() { return segment.address(); }
    @Override public long length() { return segment.byteSize(); }
    @Override public int lkey() { return key; }
    @Override public int rkey() { return key; }
    @Override public int access() { return access; }

    boolean allows(Access a) {
        return (access & a.bit()) != 0;
    }

    /** The part of the region at {@code [addr, addr+len)}, or {@code null} when it lies outside. */
    MemorySegment slice(long addr, long len) {
        long off = addr - segment.address();
        if (off < 0 || len < 0 || off + len > segment.byteSize()) {
            return null;
        }
        return segment.asSlice(off, len);
    }

    @Override
    public void close() {
        FakeFabric f = pd.device().fabric();
        synchronized (f.lock) {
            if (closed) {
                return;
            }
            closed = true;
            f.mrs.remove(key);
            pd.children--;
        }
        f.tracker.closed(this);
    }
}
