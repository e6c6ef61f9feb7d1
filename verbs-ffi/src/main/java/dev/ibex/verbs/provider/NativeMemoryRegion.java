package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.verbs.ffi.ProtectionDomains;
import dev.ibex.verbs.ffi.struct.IbvMr;
import java.lang.foreign.MemorySegment;

/** {@code struct ibv_mr} over a native segment; the segment must stay alive until the region is closed. */
final class NativeMemoryRegion extends NativeResource implements MemoryRegion {
    private final NativeProtectionDomain pd;
    private final MemorySegment segment;
    private final MemorySegment mr;
    private final int access;
    private final int lkey;
    private final int rkey;

    NativeMemoryRegion(NativeProtectionDomain pd, MemorySegment segment, int access) {
        super(pd.fabric);
        this.pd = pd;
        this.segment = segment;
        this.access = access;
        this.mr = ProtectionDomains.regMr(pd.segment(), segment, access);
        this.lkey = IbvMr.lkey(mr);
        this.rkey = IbvMr.rkey(mr);
        pd.registered.add(segment.address(), segment.byteSize());
        tracked();
    }

    @Override
    String describe() {
        return "MR of " + segment.byteSize() + " bytes";
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    /** The {@code struct ibv_mr *} a memory window's bind names. */
    @Override
    public long handle() {
        return mr.address();
    }

    MemorySegment nativeSegment() {
        return mr;
    }

    @Override
    void destroy() {
        pd.registered.remove(segment.address(), segment.byteSize());
        ProtectionDomains.deregMr(mr);
    }
}
