package dev.ibex.cm.spi;

import java.lang.foreign.MemorySegment;

/** {@code struct ibv_mr}: registered memory with its local and remote keys. */
public interface MemoryRegion extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.MEMORY_REGION;
    }

    ProtectionDomain pd();

    MemorySegment segment();

    /** The address remote peers use in RDMA operations (the segment's native address). */
    long address();

    long length();

    int lkey();

    int rkey();

    /** The access flags it was registered with ({@link Access} bits). */
    int access();

    /**
     * The value written into {@code ibv_mw_bind_info.mr} when a memory window is bound to this region (a native
     * pointer or a provider handle). By default the lkey, which names the region inside a provider.
     */
    default long handle() {
        return Integer.toUnsignedLong(lkey());
    }
}
