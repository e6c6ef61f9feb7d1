package dev.ibex.softroce.transport;

import static dev.ibex.cm.spi.QpAttr.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.softroce.Harness;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Walks every QP state transition with every attribute-mask variation that matters — the exact required set, the
 * required set plus each optional attribute, minus each required one, plus each attribute the transition does not
 * allow — on real QPs, and checks that valid modifies succeed and invalid ones fail with EINVAL leaving the state
 * unchanged. The expected table below is written out independently from the kernel's {@code qp_state_table}.
 */
class QpStateMachineTest {
    private static final int ALL_BITS = (1 << 21) - 1 & ~STATE;
    private static Harness h;
    private static ProtectionDomain pd;
    private static CompletionQueue cq;

    /** Expected (required, optional) per type and transition; transitions absent here are invalid. */
    private record Rule(int required, int optional) {}

    private static final Map<QpType, Map<String, Rule>> EXPECTED = new EnumMap<>(QpType.class);

    static {
        Map<String, Rule> rc = new java.util.HashMap<>();
        Map<String, Rule> ud = new java.util.HashMap<>();
        for (QpState s : QpState.values()) {
            rc.put(s + ">RESET", new Rule(0, 0));
            rc.put(s + ">ERR", new Rule(0, 0));
            ud.put(s + ">RESET", new Rule(0, 0));
            ud.put(s + ">ERR", new Rule(0, 0));
        }
        rc.put("RESET>INIT", new Rule(PKEY_INDEX | PORT | ACCESS_FLAGS, 0));
        ud.put("RESET>INIT", new Rule(PKEY_INDEX | PORT | QKEY, 0));
        rc.put("INIT>INIT", new Rule(0, PKEY_INDEX | PORT | ACCESS_FLAGS));
        ud.put("INIT>INIT", new Rule(0, PKEY_INDEX | PORT | QKEY));
        rc.put("INIT>RTR", new Rule(AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
                ALT_PATH | ACCESS_FLAGS | PKEY_INDEX));
        ud.put("INIT>RTR", new Rule(0, PKEY_INDEX | QKEY));
        rc.put("RTR>RTS", new Rule(TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE));
        ud.put("RTR>RTS", new Rule(SQ_PSN, CUR_STATE | QKEY));
        rc.put("RTS>RTS", new Rule(0, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER));
        ud.put("RTS>RTS", new Rule(0, CUR_STATE | QKEY));
        rc.put("RTS>SQD", new Rule(0, EN_SQD_ASYNC_NOTIFY));
        ud.put("RTS>SQD", new Rule(0, EN_SQD_ASYNC_NOTIFY));
        rc.put("SQD>RTS", new Rule(0, CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE));
        ud.put("SQD>RTS", new Rule(0, CUR_STATE | QKEY));
        rc.put("SQD>SQD", new Rule(0, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC
                | MAX_DEST_RD_ATOMIC | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE));
        ud.put("SQD>SQD", new Rule(0, PKEY_INDEX | QKEY));
        EXPECTED.put(QpType.RC, rc);
        EXPECTED.put(QpType.UD, ud);
    }

    @BeforeAll
    static void open() {
        h = new Harness();
        pd = h.a.allocPd();
        cq = h.a.createCompletionQueue(64, null, 0);
    }

    @AfterAll
    static void close() {
        cq.close();
        pd.close();
        h.close();
    }

    private static QueuePair qpIn(QpType type, QpState state) {
        QueuePair qp = pd.createQueuePair(new QpInitAttr(cq, cq, null, new QpCap(4, 4, 1, 1, 0), type, true, null));
        if (state == QpState.RESET) {
            return qp;
        }
        if (state == QpState.ERR) {
            qp.modify(new QpAttr().state(QpState.ERR));
            return qp;
        }
        qp.modify(with(new QpAttr().state(QpState.INIT), type == QpType.RC ? PKEY_INDEX | PORT | ACCESS_FLAGS
                : PKEY_INDEX | PORT | QKEY, QpState.RESET));
        if (state == QpState.INIT) {
            return qp;
        }
        Rule rtr = EXPECTED.get(type).get("INIT>RTR");
        qp.modify(with(new QpAttr().state(QpState.RTR), rtr.required(), QpState.INIT));
        if (state == QpState.RTR) {
            return qp;
        }
        qp.modify(with(new QpAttr().state(QpState.RTS), EXPECTED.get(type).get("RTR>RTS").required(), QpState.RTR));
        if (state == QpState.RTS) {
            return qp;
        }
        qp.modify(new QpAttr().state(QpState.SQD));
        assertThat(state).isEqualTo(QpState.SQD);
        return qp;
    }

    /** Sets every attribute of {@code mask} to a valid value. */
    private static QpAttr with(QpAttr a, int mask, QpState current) {
        for (int bit = 1; bit < (1 << 21); bit <<= 1) {
            if ((mask & bit) == 0) {
                continue;
            }
            switch (bit) {
                case CUR_STATE -> a.curState(current);
                case EN_SQD_ASYNC_NOTIFY -> a.enSqdAsyncNotify(true);
                case ACCESS_FLAGS -> a.accessFlags(7);
                case PKEY_INDEX -> a.pkeyIndex(0);
                case PORT -> a.portNum(1);
                case QKEY -> a.qkey(0x1234);
                case AV -> a.ahAttr(Harness.path(h.b));
                case PATH_MTU -> a.pathMtu(Mtu.MTU_1024);
                case TIMEOUT -> a.timeout(14);
                case RETRY_CNT -> a.retryCnt(7);
                case RNR_RETRY -> a.rnrRetry(7);
                case RQ_PSN -> a.rqPsn(1);
                case MAX_QP_RD_ATOMIC -> a.maxRdAtomic(4);
                case ALT_PATH -> a.altPath(Harness.path(h.b), 1, 14);
                case MIN_RNR_TIMER -> a.minRnrTimer(12);
                case SQ_PSN -> a.sqPsn(2);
                case MAX_DEST_RD_ATOMIC -> a.maxDestRdAtomic(4);
                case PATH_MIG_STATE -> a.pathMigState(MigState.MIGRATED); // valid in every state the mask is; REARM has rules of its own (ApmStateMachineTest)
                case CAP -> a.cap(new QpCap(4, 4, 1, 1, 0));
                case DEST_QPN -> a.destQpNum(0x42);
                default -> throw new IllegalStateException("bit " + bit);
            }
        }
        return a;
    }

    @Test
    void everyTransitionAndMaskBehavesLikeTheKernelTable() {
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (QpType type : List.of(QpType.RC, QpType.UD)) {
            for (QpState from : QpState.values()) {
                if (from == QpState.SQE) {
                    continue; // not reachable by modify (only a UD/UC send error enters SQE)
                }
                for (QpState to : QpState.values()) {
                    Rule rule = EXPECTED.get(type).get(from + ">" + to);
                    List<int[]> cases = new ArrayList<>(); // {mask, expectedValid}
                    if (rule == null) {
                        cases.add(new int[] {0, 0});
                        cases.add(new int[] {ALL_BITS & ~CAP & ~CUR_STATE, 0});
                    } else {
                        cases.add(new int[] {rule.required(), 1});
                        cases.add(new int[] {rule.required() | rule.optional(), 1});
                        for (int bit = 2; bit < (1 << 21); bit <<= 1) {
                            if ((rule.optional() & bit) != 0) {
                                cases.add(new int[] {rule.required() | bit, 1});
                            } else if ((rule.required() & bit) != 0) {
                                cases.add(new int[] {rule.required() & ~bit, 0});
                            } else {
                                cases.add(new int[] {rule.required() | bit, 0});
                            }
                        }
                    }
                    for (int[] c : cases) {
                        QueuePair qp = qpIn(type, from);
                        QpAttr attr = with(new QpAttr().state(to), c[0], from);
                        boolean ok;
                        try {
                            qp.modify(attr);
                            ok = true;
                        } catch (RdmaException e) {
                            ok = false;
                            if (e.errno() != Errno.EINVAL) {
                                failures.add(type + " " + from + ">" + to + " " + QpTransitions.names(c[0])
                                        + ": errno " + e.errno());
                            }
                        }
                        checked++;
                        boolean expected = c[1] == 1;
                        if (ok != expected) {
                            failures.add(type + " " + from + ">" + to + " mask " + QpTransitions.names(c[0])
                                    + (expected ? " was refused" : " was accepted"));
                        }
                        QpState now = qp.state();
                        if (ok && now != to) {
                            failures.add(type + " " + from + ">" + to + " ended in " + now);
                        }
                        if (!ok && now != from) {
                            failures.add(type + " refused " + from + ">" + to + " but moved to " + now);
                        }
                        qp.close();
                    }
                }
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + checked + " cases wrong:\n" + String.join("\n", failures));
        }
        assertThat(checked).isGreaterThan(800);
        assertThat(h.fabric.resources().get(dev.ibex.cm.spi.ResourceKind.QUEUE_PAIR)).isZero();
    }

    @Test
    void refusedModifyChangesNoAttribute() {
        QueuePair qp = qpIn(QpType.RC, QpState.INIT);
        QpAttr before = qp.query(ALL);
        try {
            // valid transition mask but an invalid value (port 2) for one attribute
            qp.modify(new QpAttr().state(QpState.RTR).ahAttr(Harness.path(h.b)).pathMtu(Mtu.MTU_1024).destQpNum(9)
                    .rqPsn(5).maxDestRdAtomic(4).minRnrTimer(40));
            fail("min_rnr_timer 40 accepted");
        } catch (RdmaException e) {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
        }
        QpAttr after = qp.query(ALL);
        assertThat(after.state()).isEqualTo(QpState.INIT);
        assertThat(after.destQpNum()).isEqualTo(before.destQpNum());
        assertThat(after.rqPsn()).isEqualTo(before.rqPsn());
        assertThat(after.ahAttr()).isNull();
        qp.close();
    }

    @Test
    void curStateMustMatch() {
        QueuePair qp = qpIn(QpType.RC, QpState.RTS);
        try {
            qp.modify(new QpAttr().state(QpState.RTS).curState(QpState.SQD));
            fail("wrong cur_qp_state accepted");
        } catch (RdmaException e) {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
        }
        qp.modify(new QpAttr().state(QpState.RTS).curState(QpState.RTS).minRnrTimer(3));
        assertThat(qp.query(ALL).minRnrTimer()).isEqualTo(3);
        qp.close();
    }
}
