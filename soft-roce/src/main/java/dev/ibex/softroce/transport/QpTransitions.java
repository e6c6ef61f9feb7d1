package dev.ibex.softroce.transport;

import static dev.ibex.cm.spi.QpAttr.*;

import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;

/**
 * Which QP state transitions exist and which attributes each requires and allows, per QP type — the table of
 * the kernel's {@code ib_modify_qp_is_ok} (IBTA vol. 1, 11.2.4.2 / chapter 10.3), including RESET → ERR, which newer
 * kernels accept. A modify whose mask lacks a required attribute or carries one the transition does not allow is
 * refused as a whole.
 */
public final class QpTransitions {
    private static final int N = QpState.values().length;
    private static final int TYPES = QpType.values().length;
    private static final boolean[][] VALID = new boolean[N][N];
    private static final int[][][] REQUIRED = new int[N][N][TYPES];
    private static final int[][][] OPTIONAL = new int[N][N][TYPES];

    private QpTransitions() {}

    private static void valid(QpState from, QpState to) {
        VALID[from.ordinal()][to.ordinal()] = true;
    }

    private static void req(QpState from, QpState to, QpType type, int mask) {
        valid(from, to);
        REQUIRED[from.ordinal()][to.ordinal()][type.ordinal()] = mask;
    }

    private static void opt(QpState from, QpState to, QpType type, int mask) {
        valid(from, to);
        OPTIONAL[from.ordinal()][to.ordinal()][type.ordinal()] = mask;
    }

    static {
        QpType rc = QpType.RC;
        QpType uc = QpType.UC;
        QpType ud = QpType.UD;
        for (QpState s : QpState.values()) {
            valid(s, QpState.RESET);
            valid(s, QpState.ERR);
        }
        // RESET -> INIT
        req(QpState.RESET, QpState.INIT, ud, PKEY_INDEX | PORT | QKEY);
        req(QpState.RESET, QpState.INIT, uc, PKEY_INDEX | PORT | ACCESS_FLAGS);
        req(QpState.RESET, QpState.INIT, rc, PKEY_INDEX | PORT | ACCESS_FLAGS);
        // INIT -> INIT
        opt(QpState.INIT, QpState.INIT, ud, PKEY_INDEX | PORT | QKEY);
        opt(QpState.INIT, QpState.INIT, uc, PKEY_INDEX | PORT | ACCESS_FLAGS);
        opt(QpState.INIT, QpState.INIT, rc, PKEY_INDEX | PORT | ACCESS_FLAGS);
        // INIT -> RTR
        valid(QpState.INIT, QpState.RTR);
        req(QpState.INIT, QpState.RTR, uc, AV | PATH_MTU | DEST_QPN | RQ_PSN);
        req(QpState.INIT, QpState.RTR, rc, AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER);
        opt(QpState.INIT, QpState.RTR, ud, PKEY_INDEX | QKEY);
        opt(QpState.INIT, QpState.RTR, uc, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX);
        opt(QpState.INIT, QpState.RTR, rc, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX);
        // RTR -> RTS
        req(QpState.RTR, QpState.RTS, ud, SQ_PSN);
        req(QpState.RTR, QpState.RTS, uc, SQ_PSN);
        req(QpState.RTR, QpState.RTS, rc, TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC);
        opt(QpState.RTR, QpState.RTS, ud, CUR_STATE | QKEY);
        opt(QpState.RTR, QpState.RTS, uc, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE);
        opt(QpState.RTR, QpState.RTS, rc, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE);
        // RTS -> RTS
        opt(QpState.RTS, QpState.RTS, ud, CUR_STATE | QKEY);
        opt(QpState.RTS, QpState.RTS, uc, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE);
        opt(QpState.RTS, QpState.RTS, rc, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER);
        // RTS -> SQD
        for (QpType t : QpType.values()) {
            opt(QpState.RTS, QpState.SQD, t, EN_SQD_ASYNC_NOTIFY);
        }
        // SQD -> RTS
        opt(QpState.SQD, QpState.RTS, ud, CUR_STATE | QKEY);
        opt(QpState.SQD, QpState.RTS, uc, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE);
        opt(QpState.SQD, QpState.RTS, rc, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE);
        // SQD -> SQD
        opt(QpState.SQD, QpState.SQD, ud, PKEY_INDEX | QKEY);
        opt(QpState.SQD, QpState.SQD, uc, AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE);
        opt(QpState.SQD, QpState.SQD, rc, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC
                | MAX_DEST_RD_ATOMIC | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE);
        // SQE -> RTS (UD and UC only)
        opt(QpState.SQE, QpState.RTS, ud, CUR_STATE | QKEY);
        opt(QpState.SQE, QpState.RTS, uc, CUR_STATE | ACCESS_FLAGS);
    }

    /** Whether {@code from → to} exists at all (for some QP type). */
    public static boolean exists(QpState from, QpState to) {
        return VALID[from.ordinal()][to.ordinal()];
    }

    /** The attributes {@code from → to} requires for {@code type} (besides {@link dev.ibex.cm.spi.QpAttr#STATE}). */
    public static int required(QpType type, QpState from, QpState to) {
        return REQUIRED[from.ordinal()][to.ordinal()][type.ordinal()];
    }

    /** The attributes {@code from → to} accepts for {@code type} beyond the required ones. */
    public static int optional(QpType type, QpState from, QpState to) {
        return OPTIONAL[from.ordinal()][to.ordinal()][type.ordinal()];
    }

    /**
     * {@code ib_modify_qp_is_ok}: whether a modify with {@code mask} may move a {@code type} QP from {@code from}
     * to {@code to}.
     */
    public static boolean isValid(QpType type, QpState from, QpState to, int mask) {
        if ((mask & CUR_STATE) != 0 && from != QpState.RTR && from != QpState.RTS && from != QpState.SQD
                && from != QpState.SQE) {
            return false;
        }
        if (!VALID[from.ordinal()][to.ordinal()]) {
            return false;
        }
        // SQE -> RTS exists for UD/UC only (an RC QP never enters SQE)
        if (from == QpState.SQE && to == QpState.RTS && type == QpType.RC) {
            return false;
        }
        int req = REQUIRED[from.ordinal()][to.ordinal()][type.ordinal()];
        int opt = OPTIONAL[from.ordinal()][to.ordinal()][type.ordinal()];
        if ((mask & req) != req) {
            return false;
        }
        return (mask & ~(req | opt | STATE)) == 0;
    }

    /** A sentence saying why {@link #isValid} refused, for the exception message. */
    public static String explain(QpType type, QpState from, QpState to, int mask) {
        if ((mask & CUR_STATE) != 0 && from != QpState.RTR && from != QpState.RTS && from != QpState.SQD
                && from != QpState.SQE) {
            return "IBV_QP_CUR_STATE is only allowed from RTR, RTS, SQD or SQE (the QP is in " + from + ")";
        }
        if (!VALID[from.ordinal()][to.ordinal()] || (from == QpState.SQE && to == QpState.RTS && type == QpType.RC)) {
            return "a " + type + " QP cannot go from " + from + " to " + to;
        }
        int req = required(type, from, to);
        int opt = optional(type, from, to);
        StringBuilder sb = new StringBuilder(type + " QP " + from + " -> " + to + ":");
        if ((mask & req) != req) {
            sb.append(" missing ").append(names(req & ~mask)).append(';');
        }
        int extra = mask & ~(req | opt | STATE);
        if (extra != 0) {
            sb.append(" not allowed ").append(names(extra)).append(';');
        }
        sb.append(" required ").append(names(req)).append(", optional ").append(names(opt));
        return sb.toString();
    }

    private static final String[] NAMES = {"STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS",
        "PKEY_INDEX", "PORT", "QKEY", "AV", "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN",
        "MAX_QP_RD_ATOMIC", "ALT_PATH", "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP",
        "DEST_QPN"};

    /** The {@code IBV_QP_*} names of the bits in {@code mask}. */
    public static String names(int mask) {
        if (mask == 0) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            if ((mask & (1 << i)) != 0) {
                sb.append(sb.length() == 0 ? "" : "|").append(i < NAMES.length ? NAMES[i] : "bit" + i);
            }
        }
        return sb.toString();
    }
}
