package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_addrinfo}: hints for and results of {@code rdma_getaddrinfo} (a list linked by
 * {@code ai_next}, freed with {@code rdma_freeaddrinfo}). The address pointers are reinterpreted to
 * {@code sockaddr_storage} size; only {@code ai_src_len}/{@code ai_dst_len} bytes are valid.
 */
public final class RdmaAddrinfo {
    /** {@code struct rdma_addrinfo} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("ai_flags"),
            U32.withName("ai_family"),
            U32.withName("ai_qp_type"),
            U32.withName("ai_port_space"),
            U32.withName("ai_src_len"),
            U32.withName("ai_dst_len"),
            PTR.withName("ai_src_addr"),
            PTR.withName("ai_dst_addr"),
            PTR.withName("ai_src_canonname"),
            PTR.withName("ai_dst_canonname"),
            SIZE_T.withName("ai_route_len"),
            PTR.withName("ai_route"),
            SIZE_T.withName("ai_connect_len"),
            PTR.withName("ai_connect"),
            PTR.withName("ai_next"))
            .withName("rdma_addrinfo");
    /** {@code sizeof(struct rdma_addrinfo)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_addrinfo, ai_flags)}. */
    public static final long OFFSET_AI_FLAGS = offset(LAYOUT, "ai_flags");
    /** {@code offsetof(struct rdma_addrinfo, ai_family)}. */
    public static final long OFFSET_AI_FAMILY = offset(LAYOUT, "ai_family");
    /** {@code offsetof(struct rdma_addrinfo, ai_qp_type)}. */
    public static final long OFFSET_AI_QP_TYPE = offset(LAYOUT, "ai_qp_type");
    /** {@code offsetof(struct rdma_addrinfo, ai_port_space)}. */
    public static final long OFFSET_AI_PORT_SPACE = offset(LAYOUT, "ai_port_space");
    /** {@code offsetof(struct rdma_addrinfo, ai_src_len)}. */
    public static final long OFFSET_AI_SRC_LEN = offset(LAYOUT, "ai_src_len");
    /** {@code offsetof(struct rdma_addrinfo, ai_dst_len)}. */
    public static final long OFFSET_AI_DST_LEN = offset(LAYOUT, "ai_dst_len");
    /** {@code offsetof(struct rdma_addrinfo, ai_src_addr)}. */
    public static final long OFFSET_AI_SRC_ADDR = offset(LAYOUT, "ai_src_addr");
    /** {@code offsetof(struct rdma_addrinfo, ai_dst_addr)}. */
    public static final long OFFSET_AI_DST_ADDR = offset(LAYOUT, "ai_dst_addr");
    /** {@code offsetof(struct rdma_addrinfo, ai_src_canonname)}. */
    public static final long OFFSET_AI_SRC_CANONNAME = offset(LAYOUT, "ai_src_canonname");
    /** {@code offsetof(struct rdma_addrinfo, ai_dst_canonname)}. */
    public static final long OFFSET_AI_DST_CANONNAME = offset(LAYOUT, "ai_dst_canonname");
    /** {@code offsetof(struct rdma_addrinfo, ai_route_len)}. */
    public static final long OFFSET_AI_ROUTE_LEN = offset(LAYOUT, "ai_route_len");
    /** {@code offsetof(struct rdma_addrinfo, ai_route)}. */
    public static final long OFFSET_AI_ROUTE = offset(LAYOUT, "ai_route");
    /** {@code offsetof(struct rdma_addrinfo, ai_connect_len)}. */
    public static final long OFFSET_AI_CONNECT_LEN = offset(LAYOUT, "ai_connect_len");
    /** {@code offsetof(struct rdma_addrinfo, ai_connect)}. */
    public static final long OFFSET_AI_CONNECT = offset(LAYOUT, "ai_connect");
    /** {@code offsetof(struct rdma_addrinfo, ai_next)}. */
    public static final long OFFSET_AI_NEXT = offset(LAYOUT, "ai_next");

    private RdmaAddrinfo() {
    }

    public static int aiFlags(MemorySegment s) {
        return s.get(U32, OFFSET_AI_FLAGS);
    }

    public static void aiFlags(MemorySegment s, int v) {
        s.set(U32, OFFSET_AI_FLAGS, v);
    }

    public static int aiFamily(MemorySegment s) {
        return s.get(U32, OFFSET_AI_FAMILY);
    }

    public static void aiFamily(MemorySegment s, int v) {
        s.set(U32, OFFSET_AI_FAMILY, v);
    }

    public static int aiQpType(MemorySegment s) {
        return s.get(U32, OFFSET_AI_QP_TYPE);
    }

    public static void aiQpType(MemorySegment s, int v) {
        s.set(U32, OFFSET_AI_QP_TYPE, v);
    }

    public static int aiPortSpace(MemorySegment s) {
        return s.get(U32, OFFSET_AI_PORT_SPACE);
    }

    public static void aiPortSpace(MemorySegment s, int v) {
        s.set(U32, OFFSET_AI_PORT_SPACE, v);
    }

    public static int aiSrcLen(MemorySegment s) {
        return s.get(U32, OFFSET_AI_SRC_LEN);
    }

    public static void aiSrcLen(MemorySegment s, int v) {
        s.set(U32, OFFSET_AI_SRC_LEN, v);
    }

    public static int aiDstLen(MemorySegment s) {
        return s.get(U32, OFFSET_AI_DST_LEN);
    }

    public static void aiDstLen(MemorySegment s, int v) {
        s.set(U32, OFFSET_AI_DST_LEN, v);
    }

    public static MemorySegment aiSrcAddr(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_AI_SRC_ADDR, SockaddrStorage.SIZE);
    }

    public static void aiSrcAddr(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_AI_SRC_ADDR, v);
    }

    public static MemorySegment aiDstAddr(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_AI_DST_ADDR, SockaddrStorage.SIZE);
    }

    public static void aiDstAddr(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_AI_DST_ADDR, v);
    }

    public static MemorySegment aiSrcCanonname(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_AI_SRC_CANONNAME);
    }

    public static void aiSrcCanonname(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_AI_SRC_CANONNAME, v);
    }

    public static MemorySegment aiDstCanonname(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_AI_DST_CANONNAME);
    }

    public static void aiDstCanonname(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_AI_DST_CANONNAME, v);
    }

    public static long aiRouteLen(MemorySegment s) {
        return s.get(U64, OFFSET_AI_ROUTE_LEN);
    }

    public static void aiRouteLen(MemorySegment s, long v) {
        s.set(U64, OFFSET_AI_ROUTE_LEN, v);
    }

    public static MemorySegment aiRoute(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_AI_ROUTE);
    }

    public static void aiRoute(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_AI_ROUTE, v);
    }

    public static long aiConnectLen(MemorySegment s) {
        return s.get(U64, OFFSET_AI_CONNECT_LEN);
    }

    public static void aiConnectLen(MemorySegment s, long v) {
        s.set(U64, OFFSET_AI_CONNECT_LEN, v);
    }

    public static MemorySegment aiConnect(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_AI_CONNECT);
    }

    public static void aiConnect(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_AI_CONNECT, v);
    }

    public static MemorySegment aiNext(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_AI_NEXT, RdmaAddrinfo.SIZE);
    }

    public static void aiNext(MemorySegment s, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, OFFSET_AI_NEXT, v);
    }
}
