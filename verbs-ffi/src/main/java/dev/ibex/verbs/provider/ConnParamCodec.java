package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.verbs.ffi.struct.RdmaConnParam;
import dev.ibex.verbs.ffi.struct.RdmaUdParam;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;

/**
 * {@link ConnParam} → {@code struct rdma_conn_param} for connect/accept, and the copies of
 * {@code param.conn}/{@code param.ud} out of a CM event (private data included) before it is acknowledged.
 */
final class ConnParamCodec {
    private static final byte[] NONE = new byte[0];

    private ConnParamCodec() {
    }

    /** A {@code struct rdma_conn_param} for {@code p} from {@code arena} (private data copied into it too). */
    static MemorySegment write(ConnParam p, SegmentAllocator arena) {
        MemorySegment s = arena.allocate(RdmaConnParam.LAYOUT);
        byte[] data = p.privateData();
        if (data.length > 0) {
            MemorySegment d = arena.allocate(data.length);
            MemorySegment.copy(data, 0, d, ValueLayout.JAVA_BYTE, 0, data.length);
            RdmaConnParam.privateData(s, d);
        }
        RdmaConnParam.privateDataLen(s, data.length);
        RdmaConnParam.responderResources(s, p.responderResources());
        RdmaConnParam.initiatorDepth(s, p.initiatorDepth());
        RdmaConnParam.flowControl(s, p.flowControl() ? 1 : 0);
        RdmaConnParam.retryCount(s, p.retryCount());
        RdmaConnParam.rnrRetryCount(s, p.rnrRetryCount());
        RdmaConnParam.srq(s, p.srq() ? 1 : 0);
        RdmaConnParam.qpNum(s, p.qpNum());
        return s;
    }

    /** A copy of an event's {@code param.conn}. */
    static ConnParam read(MemorySegment conn) {
        return new ConnParam(copy(RdmaConnParam.privateDataBytes(conn)), RdmaConnParam.responderResources(conn),
                RdmaConnParam.initiatorDepth(conn), RdmaConnParam.flowControl(conn) != 0,
                RdmaConnParam.retryCount(conn) & 7, RdmaConnParam.rnrRetryCount(conn) & 7, RdmaConnParam.srq(conn) != 0,
                RdmaConnParam.qpNum(conn));
    }

    /**
     * A copy of an event's {@code param.ud}.
     *
     * @param withPrivateData false for multicast events, whose {@code private_data} is the join context
     *     pointer, not data
     */
    static UdParam readUd(MemorySegment ud, boolean withPrivateData) {
        byte[] data = withPrivateData ? copy(RdmaUdParam.privateDataBytes(ud)) : NONE;
        return new UdParam(data, AhAttrCodec.read(RdmaUdParam.ahAttr(ud)), RdmaUdParam.qpNum(ud), RdmaUdParam.qkey(ud));
    }

    /** The bytes of a segment from {@code privateDataBytes} (NULL: none). */
    static byte[] copy(MemorySegment data) {
        if (data.address() == 0 || data.byteSize() == 0) {
            return NONE;
        }
        return data.toArray(ValueLayout.JAVA_BYTE);
    }
}
