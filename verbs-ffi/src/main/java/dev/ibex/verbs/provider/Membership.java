package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.verbs.ffi.RdmaCm;
import dev.ibex.verbs.ffi.constant.RdmaCmJoinMcAttrMask;
import dev.ibex.verbs.ffi.constant.RdmaCmMcJoinFlags;
import dev.ibex.verbs.ffi.struct.RdmaCmJoinMcAttrEx;
import dev.ibex.verbs.ffi.struct.SockaddrStorage;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A multicast group joined by a UD {@link NativeCmId} ({@code rdma_join_multicast_ex}). The join's
 * {@code context} pointer is this membership's handle, so MULTICAST_JOIN/ERROR events carry the application's
 * context object back. Closing leaves the group ({@code rdma_leave_multicast}, which detaches the QP and cancels
 * a join in progress); the id closes its memberships before its QP and itself.
 */
final class Membership extends NativeResource {
    private final NativeCmId id;
    private final InetSocketAddress group;
    private final boolean sendOnly;
    private final Object context;
    private final long handle;
    /** The group's sockaddr, kept for the leave. */
    private final MemorySegment address;
    private boolean joined;

    Membership(NativeCmId id, InetSocketAddress group, boolean sendOnly, Object context) {
        super(id.fabric);
        this.id = id;
        this.group = group;
        this.sendOnly = sendOnly;
        this.context = context;
        this.address = NativeCmId.sockaddr(Arena.ofAuto(), group);
        this.handle = fabric.handles().register(this);
    }

    void join() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(RdmaCmJoinMcAttrEx.LAYOUT);
            RdmaCmJoinMcAttrEx.compMask(attr,
                    RdmaCmJoinMcAttrMask.RDMA_CM_JOIN_MC_ATTR_ADDRESS | RdmaCmJoinMcAttrMask.RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS);
            RdmaCmJoinMcAttrEx.joinFlags(attr, sendOnly
                    ? RdmaCmMcJoinFlags.RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER : RdmaCmMcJoinFlags.RDMA_MC_JOIN_FLAG_FULLMEMBER);
            RdmaCmJoinMcAttrEx.addr(attr, address);
            RdmaCm.joinMulticastEx(id.segment(), attr, MemorySegment.ofAddress(handle));
        }
        joined = true;
        tracked();
    }

    /** Drops the bookkeeping without a native call (the join failed, or the id's destroy leaves for us). */
    void abandon() {
        fabric.handles().release(handle);
        id.forget(this);
        if (joined) {
            fabric.tracker().closed(this);
        }
    }

    InetSocketAddress group() {
        return group;
    }

    Object context() {
        return context;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.MULTICAST;
    }

    @Override
    String describe() {
        return "multicast membership " + group;
    }

    @Override
    void destroy() {
        RdmaCm.leaveMulticast(id.segment(), address.asSlice(0, SockaddrStorage.SIZE));
        fabric.handles().release(handle);
        id.forget(this);
    }
}
