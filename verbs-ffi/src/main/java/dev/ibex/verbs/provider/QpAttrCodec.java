package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.verbs.ffi.struct.IbvQpAttr;
import dev.ibex.verbs.ffi.struct.IbvQpCap;
import java.lang.foreign.MemorySegment;

/**
 * {@link QpAttr} ↔ {@code struct ibv_qp_attr}. The SPI's mask bits are the {@code ibv_qp_attr_mask} values,
 * so the mask passes through unchanged; the struct gets every field (unset ones at their defaults), and the
 * kernel reads only the masked ones.
 */
final class QpAttrCodec {
    private QpAttrCodec() {
    }

    static void write(QpAttr a, MemorySegment s) {
        s.asSlice(0, IbvQpAttr.SIZE).fill((byte) 0);
        IbvQpAttr.qpState(s, a.state().code());
        IbvQpAttr.curQpState(s, a.curState().code());
        IbvQpAttr.pathMtu(s, a.pathMtu().code());
        IbvQpAttr.pathMigState(s, a.pathMigState().code());
        IbvQpAttr.qkey(s, a.qkey());
        IbvQpAttr.rqPsn(s, a.rqPsn());
        IbvQpAttr.sqPsn(s, a.sqPsn());
        IbvQpAttr.destQpNum(s, a.destQpNum());
        IbvQpAttr.qpAccessFlags(s, a.accessFlags());
        if (a.cap() != null) {
            writeCap(a.cap(), IbvQpAttr.cap(s));
        }
        if (a.ahAttr() != null) {
            AhAttrCodec.write(a.ahAttr(), IbvQpAttr.ahAttr(s));
        }
        if (a.altAhAttr() != null) {
            AhAttrCodec.write(a.altAhAttr(), IbvQpAttr.altAhAttr(s));
        }
        IbvQpAttr.pkeyIndex(s, a.pkeyIndex());
        IbvQpAttr.altPkeyIndex(s, a.altPkeyIndex());
        IbvQpAttr.enSqdAsyncNotify(s, a.enSqdAsyncNotify() ? 1 : 0);
        IbvQpAttr.maxRdAtomic(s, a.maxRdAtomic());
        IbvQpAttr.maxDestRdAtomic(s, a.maxDestRdAtomic());
        IbvQpAttr.minRnrTimer(s, a.minRnrTimer());
        IbvQpAttr.portNum(s, a.portNum());
        IbvQpAttr.timeout(s, a.timeout());
        IbvQpAttr.retryCnt(s, a.retryCnt());
        IbvQpAttr.rnrRetry(s, a.rnrRetry());
        IbvQpAttr.altPortNum(s, a.altPortNum());
        IbvQpAttr.altTimeout(s, a.altTimeout());
        IbvQpAttr.rateLimit(s, a.rateLimit());
    }

    /** The attributes in {@code s}, with {@code mask} as the set of valid ones. */
    static QpAttr read(MemorySegment s, int mask) {
        QpAttr a = new QpAttr()
                .state(QpState.ofCode(IbvQpAttr.qpState(s)))
                .curState(QpState.ofCode(IbvQpAttr.curQpState(s)))
                .pathMigState(MigState.ofCode(IbvQpAttr.pathMigState(s)))
                .qkey(IbvQpAttr.qkey(s))
                .rqPsn(IbvQpAttr.rqPsn(s))
                .sqPsn(IbvQpAttr.sqPsn(s))
                .destQpNum(IbvQpAttr.destQpNum(s))
                .accessFlags(IbvQpAttr.qpAccessFlags(s))
                .cap(readCap(IbvQpAttr.cap(s)))
                .ahAttr(AhAttrCodec.read(IbvQpAttr.ahAttr(s)))
                .pkeyIndex(IbvQpAttr.pkeyIndex(s))
                .enSqdAsyncNotify(IbvQpAttr.enSqdAsyncNotify(s) != 0)
                .maxRdAtomic(IbvQpAttr.maxRdAtomic(s))
                .maxDestRdAtomic(IbvQpAttr.maxDestRdAtomic(s))
                .minRnrTimer(IbvQpAttr.minRnrTimer(s))
                .portNum(IbvQpAttr.portNum(s))
                .timeout(IbvQpAttr.timeout(s))
                .retryCnt(IbvQpAttr.retryCnt(s))
                .rnrRetry(IbvQpAttr.rnrRetry(s))
                .rateLimit(IbvQpAttr.rateLimit(s))
                .altPath(AhAttrCodec.read(IbvQpAttr.altAhAttr(s)), IbvQpAttr.altPortNum(s), IbvQpAttr.altTimeout(s))
                .altPkeyIndex(IbvQpAttr.altPkeyIndex(s))
                .sqDraining(IbvQpAttr.sqDraining(s) != 0);
        Mtu mtu = NativeDeviceContext.mtu(IbvQpAttr.pathMtu(s));
        if (mtu != null) {
            a.pathMtu(mtu);
        }
        return a.mask(mask);
    }

    static void writeCap(QpCap c, MemorySegment s) {
        IbvQpCap.maxSendWr(s, c.maxSendWr());
        IbvQpCap.maxRecvWr(s, c.maxRecvWr());
        IbvQpCap.maxSendSge(s, c.maxSendSge());
        IbvQpCap.maxRecvSge(s, c.maxRecvSge());
        IbvQpCap.maxInlineData(s, c.maxInlineData());
    }

    static QpCap readCap(MemorySegment s) {
        return new QpCap(IbvQpCap.maxSendWr(s), IbvQpCap.maxRecvWr(s), IbvQpCap.maxSendSge(s), IbvQpCap.maxRecvSge(s),
                IbvQpCap.maxInlineData(s));
    }
}
