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
}
