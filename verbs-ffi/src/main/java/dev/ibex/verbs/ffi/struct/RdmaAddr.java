package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_addr}: source and destination socket addresses plus the IB addresses of an id.
 */
public final class RdmaAddr {
    /** {@code struct rdma_addr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.unionLayout(
                    Sockaddr.LAYOUT.withName("src_addr"),
                    SockaddrIn.LAYOUT.withName("src_sin"),
                    SockaddrIn6.LAYOUT.withName("src_sin6"),
                    SockaddrStorage.LAYOUT.withName("src_storage")),
            MemoryLayout.unionLayout(
                    Sockaddr.LAYOUT.withName("dst_addr"),
                    SockaddrIn.LAYOUT.withName("dst_sin"),
                    SockaddrIn6.LAYOUT.withName("dst_sin6"),
                    SockaddrStorage.LAYOUT.withName("dst_storage")),
            MemoryLayout.unionLayout(
                    RdmaIbAddr.LAYOUT.withName("ibaddr")).withName("addr"))
            .withName("rdma_addr");
    /** {@code sizeof(struct rdma_addr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_addr, src_addr)}. */
    public static final long OFFSET_SRC_ADDR = offset(LAYOUT, "src_addr");
    /** {@code offsetof(struct rdma_addr, dst_addr)}. */
    public static final long OFFSET_DST_ADDR = offset(LAYOUT, "dst_addr");
    /** {@code offsetof(struct rdma_addr, addr.ibaddr)}. */
    public static final long OFFSET_ADDR_IBADDR = offset(LAYOUT, "addr.ibaddr");

    private RdmaAddr() {
    }

    public static MemorySegment srcAddr(MemorySegment s) {
        return s.asSlice(OFFSET_SRC_ADDR, SockaddrStorage.SIZE);
    }

    public static MemorySegment dstAddr(MemorySegment s) {
        return s.asSlice(OFFSET_DST_ADDR, SockaddrStorage.SIZE);
    }

    public static MemorySegment ibaddr(MemorySegment s) {
        return s.asSlice(OFFSET_ADDR_IBADDR, RdmaIbAddr.SIZE);
    }
}
