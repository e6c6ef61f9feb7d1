package dev.ibex.cm.spi;

import java.lang.foreign.MemorySegment;

/** {@code struct ibv_mr}: registered memory with its local and remote keys. */
public interface MemoryRegion extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.MEMORY_REGION;
    }

    /** {@return the protection domain the region was registered in} */
    ProtectionDomain pd();

    /** {@return the registered native memory} */
    MemorySegment segment();

    /** {@return the address remote peers use in RDMA operations (the segment's native address)} */
    long address();

    /** {@return the region's length in bytes} */
    long length();

    /** {@return the local key, for scatter/gather entries} */
    int lkey();

    /** {@return the remote key peers use to reach the region (only as far as its access allows)} */
    int rkey();

    /** {@return the access flags it was registered with ({@link Access} bits)} */
    int access();

    /**
     * The value written into {@code ibv_mw_bind_info.mr} when a memory window is bound to this region (a native
     * pointer or a provider handle). By default the lkey, which names the region inside a provider.
     *
     * @return the handle
     */
    default long handle() {
        return Integer.toUnsignedLong(lkey());
    }
}
