package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_ud_param}: the {@code param.ud} of a CM event on a UDP/IPoIB id (ESTABLISHED,
 * MULTICAST_JOIN): the address vector, remote QPN and Q_Key.
 */
public final class RdmaUdParam {
    /** {@code struct rdma_ud_param} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("private_data"),
            U8.withName("private_data_len"),
            pad(7),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            U32.withName("qp_num"),
            U32.withName("qkey"))
            .withName("rdma_ud_param");
    /** {@code sizeof(struct rdma_ud_param)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_ud_param, private_data)}. */
    public static final long OFFSET_PRIVATE_DATA = offset(LAYOUT, "private_data");
    /** {@code offsetof(struct rdma_ud_param, private_data_len)}. */
    public static final long OFFSET_PRIVATE_DATA_LEN = offset(LAYOUT, "private_data_len");
    /** {@code offsetof(struct rdma_ud_param, ah_attr)}. */
    public static final long OFFSET_AH_ATTR = offset(LAYOUT, "ah_attr");
    /** {@code offsetof(struct rdma_ud_param, qp_num)}. */
    public static final long OFFSET_QP_NUM = offset(LAYOUT, "qp_num");
    /** {@code offsetof(struct rdma_ud_param, qkey)}. */
    public static final long OFFSET_QKEY = offset(LAYOUT, "qkey");

    private RdmaUdParam() {
    }

    public static MemorySegment privateData(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_PRIVATE_DATA);
    }

    public static int privateDataLen(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PRIVATE_DATA_LEN));
    }

    public static MemorySegment ahAttr(MemorySegment s) {
        return s.asSlice(OFFSET_AH_ATTR, IbvAhAttr.SIZE);
    }

    public static int qpNum(MemorySegment s) {
        return s.get(U32, OFFSET_QP_NUM);
    }

    public static int qkey(MemorySegment s) {
        return s.get(U32, OFFSET_QKEY);
    }

    /** The private data as a segment of {@code private_data_len} bytes; copy it before the ack. */
    public static MemorySegment privateDataBytes(MemorySegment s) {
        MemorySegment p = s.get(ValueLayout.ADDRESS, OFFSET_PRIVATE_DATA);
        return p.address() == 0 ? MemorySegment.NULL : p.reinterpret(privateDataLen(s));
    }
}
