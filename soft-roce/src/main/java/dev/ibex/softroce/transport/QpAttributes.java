package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;

/**
 * A QP's modifiable attributes (rxe's {@code qp->attr}) and what rxe_qp.c does with them: {@link #check} the values
 * against the device ({@code rxe_qp_chk_attr}; {@link QpTransitions} checks the transition and mask), {@link #store}
 * them ({@code rxe_qp_from_attr}) and {@link #report} them ({@code rxe_qp_to_attr}). The path attributes live in
 * {@link PathMigration}.
 *
 * <p>Threading: written by {@code modify} while both of the QP's tasks are held; read by the tasks and by
 * {@code query} on any thread (every field is volatile).
 */
final class QpAttributes {
    volatile int accessFlags;
    volatile int qkey;
    volatile Mtu pathMtu = Mtu.MTU_1024;
    volatile int mtuBytes = 1024;
    volatile int destQpn;
    volatile int rqPsn;
    volatile int sqPsn;
    volatile int retryCnt;
    volatile int rnrRetry;
    volatile int minRnrTimer;
    volatile int maxRdAtomic;
    volatile int maxDestRdAtomic;
    volatile boolean enSqdAsyncNotify;

    /** Checks the values {@code a} sets against {@code device} (the transition and mask are checked already). */
    static void check(SoftDevice device, QpType type, QpAttr a) {
        var dev = device.queryDevice();
        if (a.has(QpAttr.PORT) && (a.portNum() < 1 || a.portNum() > device.portCount())) {
            throw einval("port_num " + a.portNum() + ": " + device.name() + " has ports 1.." + device.portCount());
        }
        if (a.has(QpAttr.PKEY_INDEX) && a.pkeyIndex() != 0) {
            throw einval("pkey_index " + a.pkeyIndex() + ": the P_Key table has one entry (index 0)");
        }
        if (a.has(QpAttr.ACCESS_FLAGS) && (a.accessFlags() & ~0x1F) != 0) {
            throw einval("unsupported access flags 0x" + Integer.toHexString(a.accessFlags()));
        }
        if (a.has(QpAttr.PATH_MTU) && a.pathMtu().code() > device.queryPort(1).maxMtu().code()) {
            throw einval("path MTU " + a.pathMtu() + " exceeds the port's maximum");
        }
        if (a.has(QpAttr.TIMEOUT) && (a.timeout() < 0 || a.timeout() > 31)) {
            throw einval("timeout must be within 0..31, got " + a.timeout());
        }
        if (a.has(QpAttr.RETRY_CNT) && (a.retryCnt() < 0 || a.retryCnt() > 7)) {
            throw einval("retry_cnt must be within 0..7, got " + a.retryCnt());
        }
        if (a.has(QpAttr.RNR_RETRY) && (a.rnrRetry() < 0 || a.rnrRetry() > 7)) {
            throw einval("rnr_retry must be within 0..7, got " + a.rnrRetry());
        }
        if (a.has(QpAttr.MIN_RNR_TIMER) && (a.minRnrTimer() < 0 || a.minRnrTimer() > 31)) {
            throw einval("min_rnr_timer must be within 0..31, got " + a.minRnrTimer());
        }
        if (a.has(QpAttr.MAX_QP_RD_ATOMIC) && (a.maxRdAtomic() < 0 || a.maxRdAtomic() > dev.maxQpInitRdAtom())) {
            throw einval("max_rd_atomic must be within 0.." + dev.maxQpInitRdAtom() + ", got " + a.maxRdAtomic());
        }
        if (a.has(QpAttr.MAX_DEST_RD_ATOMIC) && (a.maxDestRdAtomic() < 0 || a.maxDestRdAtomic() > dev.maxQpRdAtom())) {
            throw einval("max_dest_rd_atomic must be within 0.." + dev.maxQpRdAtom() + ", got " + a.maxDestRdAtomic());
        }
        if (a.has(QpAttr.DEST_QPN) && (a.destQpNum() & ~0xFFFFFF) != 0) {
            throw einval("dest_qp_num must fit in 24 bits, got 0x" + Integer.toHexString(a.destQpNum()));
        }
        if (a.has(QpAttr.ALT_PATH)) {
            if (a.altPortNum() < 1 || a.altPortNum() > device.portCount()) {
                throw einval("alt_port_num " + a.altPortNum() + ": " + device.name() + " has ports 1.."
                        + device.portCount());
            }
            if (a.altAhAttr() == null || a.altAhAttr().portNum() != a.altPortNum()) {
                throw einval("alt_ah_attr must name the alternate port alt_port_num " + a.altPortNum());
            }
            if (a.altPkeyIndex() != 0) {
                throw einval("alt_pkey_index " + a.altPkeyIndex() + ": the P_Key table has one entry (index 0)");
            }
            if (a.altTimeout() < 0 || a.altTimeout() > 31) {
                throw einval("alt_timeout must be within 0..31, got " + a.altTimeout());
            }
        }
        if (a.has(QpAttr.AV) && type == QpType.RC && isMulticast(a.ahAttr().dgid())) {
            throw einval("an RC QP cannot be connected to a multicast address");
        }
    }

    /** Whether {@code gid} is an IPv4-mapped multicast address (RoCEv2's multicast GIDs). */
    static boolean isMulticast(Gid gid) {
        return gid.isIpv4Mapped() && (gid.byteAt(12) & 0xF0) == 0xE0;
    }

    /** The EINVAL {@code ibv_modify_qp} fails with. */
    static RdmaException einval(String why) {
        return new RdmaException("ibv_modify_qp", Errno.EINVAL, why);
    }

    /** Stores every attribute {@code a} sets but the paths (a validated modify; both tasks are held). */
    void store(QpAttr a) {
        if (a.has(QpAttr.ACCESS_FLAGS)) {
            accessFlags = a.accessFlags();
        }
        if (a.has(QpAttr.QKEY)) {
            qkey = a.qkey();
        }
        if (a.has(QpAttr.PATH_MTU)) {
            pathMtu = a.pathMtu();
            mtuBytes = a.pathMtu().bytes();
        }
        if (a.has(QpAttr.DEST_QPN)) {
            destQpn = a.destQpNum();
        }
        if (a.has(QpAttr.RQ_PSN)) {
            rqPsn = a.rqPsn();
        }
        if (a.has(QpAttr.SQ_PSN)) {
            sqPsn = a.sqPsn();
        }
        if (a.has(QpAttr.RETRY_CNT)) {
            retryCnt = a.retryCnt();
        }
        if (a.has(QpAttr.RNR_RETRY)) {
            rnrRetry = a.rnrRetry();
        }
        if (a.has(QpAttr.MIN_RNR_TIMER)) {
            minRnrTimer = a.minRnrTimer();
        }
        if (a.has(QpAttr.MAX_QP_RD_ATOMIC)) {
            maxRdAtomic = a.maxRdAtomic();
        }
        if (a.has(QpAttr.MAX_DEST_RD_ATOMIC)) {
            maxDestRdAtomic = a.maxDestRdAtomic();
        }
        if (a.has(QpAttr.EN_SQD_ASYNC_NOTIFY)) {
            enSqdAsyncNotify = a.enSqdAsyncNotify();
        }
    }

    /**
     * The attributes {@code ibv_query_qp} reports ({@code rxe_qp_to_attr}): the stored ones, the QP's {@code state},
     * its paths {@code p}, and the PSNs the caller read live from its tasks.
     */
    QpAttr report(QpState state, PathMigration.Paths p, int rqPsnNow, int sqPsnNow, QpCap cap, boolean sqDraining) {
        QpAttr a = new QpAttr()
                .state(state)
                .curState(state)
                .accessFlags(accessFlags)
                .pkeyIndex(p.primary().pkeyIndex())
                .portNum(p.primary().port())
                .qkey(qkey)
                .pathMtu(pathMtu)
                .destQpNum(destQpn)
                .rqPsn(rqPsnNow)
                .sqPsn(sqPsnNow)
                .timeout(p.primary().timeout())
                .retryCnt(retryCnt)
                .rnrRetry(rnrRetry)
                .minRnrTimer(minRnrTimer)
                .maxRdAtomic(maxRdAtomic)
                .maxDestRdAtomic(maxDestRdAtomic)
                .pathMigState(p.state())
                .enSqdAsyncNotify(enSqdAsyncNotify)
                .cap(cap)
                .sqDraining(sqDraining);
        if (p.route() != null) {
            a.ahAttr(p.route().attr());
        }
        PathMigration.Path alt = p.alternate();
        if (alt != null) {
            a.altPath(alt.route().attr(), alt.port(), alt.timeout()).altPkeyIndex(alt.pkeyIndex());
        }
        return a;
    }
}
