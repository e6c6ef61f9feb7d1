package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.IbCmAction.CANCEL_SEND;
import static dev.ibex.softroce.cm.IbCmAction.CANCEL_TIMEWAIT;
import static dev.ibex.softroce.cm.IbCmAction.ENTER_TIMEWAIT;
import static dev.ibex.softroce.cm.IbCmAction.EXTEND_SEND;
import static dev.ibex.softroce.cm.IbCmAction.LISTEN_INSERT;
import static dev.ibex.softroce.cm.IbCmAction.LISTEN_REMOVE;
import static dev.ibex.softroce.cm.IbCmAction.PREPARE_MRA;
import static dev.ibex.softroce.cm.IbCmAction.RECORD_DREQ_TID;
import static dev.ibex.softroce.cm.IbCmAction.RECORD_REP;
import static dev.ibex.softroce.cm.IbCmAction.RESEND_DREP;
import static dev.ibex.softroce.cm.IbCmAction.RESEND_MRA;
import static dev.ibex.softroce.cm.IbCmAction.RESEND_RTU;
import static dev.ibex.softroce.cm.IbCmAction.SEND_DREP;
import static dev.ibex.softroce.cm.IbCmAction.SEND_DREQ;
import static dev.ibex.softroce.cm.IbCmAction.SEND_DREQ_ONCE;
import static dev.ibex.softroce.cm.IbCmAction.SEND_MRA;
import static dev.ibex.softroce.cm.IbCmAction.SEND_REJ;
import static dev.ibex.softroce.cm.IbCmAction.SEND_REJ_CONSUMER;
import static dev.ibex.softroce.cm.IbCmAction.SEND_REJ_STALE;
import static dev.ibex.softroce.cm.IbCmAction.SEND_REJ_TIMEOUT;
import static dev.ibex.softroce.cm.IbCmAction.SEND_REP;
import static dev.ibex.softroce.cm.IbCmAction.SEND_REQ;
import static dev.ibex.softroce.cm.IbCmAction.SEND_RTU;
import static dev.ibex.softroce.cm.IbCmAction.SEND_SIDR_REP;
import static dev.ibex.softroce.cm.IbCmAction.SEND_SIDR_REP_REJECT;
import static dev.ibex.softroce.cm.IbCmAction.SEND_SIDR_REQ;
import static dev.ibex.softroce.cm.IbCmAction.SPAWN_REQ;
import static dev.ibex.softroce.cm.IbCmAction.SPAWN_SIDR_REQ;
import static dev.ibex.softroce.cm.IbCmEventType.DREP_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.DREQ_ERROR;
import static dev.ibex.softroce.cm.IbCmEventType.DREQ_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.MRA_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.REJ_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.REP_ERROR;
import static dev.ibex.softroce.cm.IbCmEventType.REP_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.REQ_ERROR;
import static dev.ibex.softroce.cm.IbCmEventType.REQ_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.RTU_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.SIDR_REP_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.SIDR_REQ_ERROR;
import static dev.ibex.softroce.cm.IbCmEventType.SIDR_REQ_RECEIVED;
import static dev.ibex.softroce.cm.IbCmEventType.TIMEWAIT_EXIT;
import static dev.ibex.softroce.cm.IbCmEventType.USER_ESTABLISHED;
import static dev.ibex.softroce.cm.IbCmInput.DELAY_MRA;
import static dev.ibex.softroce.cm.IbCmInput.DESTROY;
import static dev.ibex.softroce.cm.IbCmInput.ESTABLISH;
import static dev.ibex.softroce.cm.IbCmInput.LISTEN;
import static dev.ibex.softroce.cm.IbCmInput.RECV_DREP;
import static dev.ibex.softroce.cm.IbCmInput.RECV_DREQ;
import static dev.ibex.softroce.cm.IbCmInput.RECV_MRA_REP;
import static dev.ibex.softroce.cm.IbCmInput.RECV_MRA_REQ;
import static dev.ibex.softroce.cm.IbCmInput.RECV_REJ;
import static dev.ibex.softroce.cm.IbCmInput.RECV_REJ_STALE;
import static dev.ibex.softroce.cm.IbCmInput.RECV_REP;
import static dev.ibex.softroce.cm.IbCmInput.RECV_REQ;
import static dev.ibex.softroce.cm.IbCmInput.RECV_RTU;
import static dev.ibex.softroce.cm.IbCmInput.RECV_SIDR_REP;
import static dev.ibex.softroce.cm.IbCmInput.RECV_SIDR_REQ;
import static dev.ibex.softroce.cm.IbCmInput.RETRIES_EXHAUSTED;
import static dev.ibex.softroce.cm.IbCmInput.TIMEWAIT_EXPIRED;
import static dev.ibex.softroce.cm.IbCmState.DREQ_RCVD;
import static dev.ibex.softroce.cm.IbCmState.DREQ_SENT;
import static dev.ibex.softroce.cm.IbCmState.ESTABLISHED;
import static dev.ibex.softroce.cm.IbCmState.IDLE;
import static dev.ibex.softroce.cm.IbCmState.MRA_REP_RCVD;
import static dev.ibex.softroce.cm.IbCmState.MRA_REP_SENT;
import static dev.ibex.softroce.cm.IbCmState.MRA_REQ_RCVD;
import static dev.ibex.softroce.cm.IbCmState.MRA_REQ_SENT;
import static dev.ibex.softroce.cm.IbCmState.REP_RCVD;
import static dev.ibex.softroce.cm.IbCmState.REP_SENT;
import static dev.ibex.softroce.cm.IbCmState.REQ_RCVD;
import static dev.ibex.softroce.cm.IbCmState.REQ_SENT;
import static dev.ibex.softroce.cm.IbCmState.SIDR_REQ_RCVD;
import static dev.ibex.softroce.cm.IbCmState.SIDR_REQ_SENT;
import static dev.ibex.softroce.cm.IbCmState.TIMEWAIT;

import java.util.EnumMap;
import java.util.Map;

/**
 * The IB CM state machine as data: for every {@link IbCmState} × {@link IbCmInput}, the next state, the
 * actions and the event, as the kernel's {@code cm.c} behaves on a RoCE port (wire.md §2.4). Cells not listed
 * take the default of their input's {@link IbCmInput.Kind}: calls are refused (EINVAL), messages and timers
 * discarded. Matching a message to an id (comm IDs, duplicate and stale detection, DREQ QPN check) happens
 * before the table is consulted; see {@link IbCm}.
 *
 * <p>Deviations from the kernel, all toward the IBTA: LAP/APR are discarded (the kernel refuses them on RoCE
 * too); a consumer REJ or a DREQ cancels the outstanding request's retries in every state (the kernel keeps a
 * stale REP retrying after DREQ in MRA_REP_RCVD and after a consumer REJ in REQ_SENT).
 */
public final class IbCmTable {
    private static final Map<IbCmState, EnumMap<IbCmInput, IbCmTransition>> CELLS = new EnumMap<>(IbCmState.class);

    static {
        for (IbCmState s : IbCmState.values()) {
            CELLS.put(s, new EnumMap<>(IbCmInput.class));
        }
        // IDLE: a fresh id, or one whose connection ended.
        on(IDLE, LISTEN, IbCmState.LISTEN, null, LISTEN_INSERT);
        on(IDLE, IbCmInput.SEND_REQ, REQ_SENT, null, SEND_REQ);
        on(IDLE, IbCmInput.SEND_SIDR_REQ, SIDR_REQ_SENT, null, SEND_SIDR_REQ);
        on(IDLE, DESTROY, IDLE, null);

        on(IbCmState.LISTEN, RECV_REQ, IbCmState.LISTEN, REQ_RECEIVED, SPAWN_REQ);
        on(IbCmState.LISTEN, RECV_SIDR_REQ, IbCmState.LISTEN, SIDR_REQ_RECEIVED, SPAWN_SIDR_REQ);
        on(IbCmState.LISTEN, DESTROY, IDLE, null, LISTEN_REMOVE);

        // Active side, waiting for REP.
        for (IbCmState s : new IbCmState[] {REQ_SENT, MRA_REQ_RCVD}) {
            on(s, RECV_REP, REP_RCVD, REP_RECEIVED, CANCEL_SEND, RECORD_REP);
            on(s, RECV_REJ, IDLE, REJ_RECEIVED, CANCEL_SEND);
            on(s, RECV_REJ_STALE, TIMEWAIT, REJ_RECEIVED, CANCEL_SEND, ENTER_TIMEWAIT);
            on(s, RETRIES_EXHAUSTED, IDLE, REQ_ERROR);
            on(s, IbCmInput.SEND_REJ, IDLE, null, CANCEL_SEND, SEND_REJ);
            on(s, DESTROY, IDLE, null, CANCEL_SEND, SEND_REJ_TIMEOUT);
        }
        on(REQ_SENT, RECV_MRA_REQ, MRA_REQ_RCVD, MRA_RECEIVED, EXTEND_SEND);

        // Passive side, REQ delivered to the consumer.
        for (IbCmState s : new IbCmState[] {REQ_RCVD, MRA_REQ_SENT}) {
            on(s, IbCmInput.SEND_REP, REP_SENT, null, SEND_REP);
            on(s, IbCmInput.SEND_REJ, IDLE, null, SEND_REJ);
            on(s, RECV_REJ, IDLE, REJ_RECEIVED);
            on(s, RECV_REJ_STALE, TIMEWAIT, REJ_RECEIVED, ENTER_TIMEWAIT);
            on(s, DESTROY, IDLE, null, SEND_REJ_CONSUMER);
        }
        on(REQ_RCVD, IbCmInput.SEND_MRA, MRA_REQ_SENT, null, SEND_MRA);
        on(REQ_RCVD, DELAY_MRA, MRA_REQ_SENT, null, PREPARE_MRA);
        on(MRA_REQ_SENT, RECV_REQ, MRA_REQ_SENT, null, RESEND_MRA);

        // Passive side, REP outstanding.
        for (IbCmState s : new IbCmState[] {REP_SENT, MRA_REP_RCVD}) {
            on(s, RECV_RTU, ESTABLISHED, RTU_RECEIVED, CANCEL_SEND);
            on(s, ESTABLISH, ESTABLISHED, USER_ESTABLISHED, CANCEL_SEND);
            on(s, RECV_REJ, IDLE, REJ_RECEIVED, CANCEL_SEND);
            on(s, RECV_REJ_STALE, TIMEWAIT, REJ_RECEIVED, CANCEL_SEND, ENTER_TIMEWAIT);
            on(s, RECV_DREQ, DREQ_RCVD, DREQ_RECEIVED, CANCEL_SEND, RECORD_DREQ_TID);
            on(s, RETRIES_EXHAUSTED, IDLE, REP_ERROR);
            on(s, IbCmInput.SEND_REJ, TIMEWAIT, null, CANCEL_SEND, SEND_REJ, ENTER_TIMEWAIT);
            on(s, DESTROY, IDLE, null, CANCEL_SEND, SEND_REJ_CONSUMER);
        }
        on(REP_SENT, RECV_MRA_REP, MRA_REP_RCVD, MRA_RECEIVED, EXTEND_SEND);

        // Active side, REP received, RTU not yet sent.
        for (IbCmState s : new IbCmState[] {REP_RCVD, MRA_REP_SENT}) {
            on(s, IbCmInput.SEND_RTU, ESTABLISHED, null, SEND_RTU);
            on(s, IbCmInput.SEND_REJ, IDLE, null, SEND_REJ);
            on(s, RECV_REJ, TIMEWAIT, REJ_RECEIVED, ENTER_TIMEWAIT);
            on(s, RECV_REJ_STALE, TIMEWAIT, REJ_RECEIVED, ENTER_TIMEWAIT);
            on(s, DESTROY, IDLE, null, SEND_REJ_CONSUMER);
        }
        on(REP_RCVD, IbCmInput.SEND_MRA, MRA_REP_SENT, null, SEND_MRA);
        on(REP_RCVD, DELAY_MRA, MRA_REP_SENT, null, PREPARE_MRA);
        on(MRA_REP_SENT, RECV_REP, MRA_REP_SENT, null, RESEND_MRA);

        on(ESTABLISHED, RECV_REP, ESTABLISHED, null, RESEND_RTU);
        on(ESTABLISHED, IbCmInput.SEND_DREQ, DREQ_SENT, null, SEND_DREQ);
        on(ESTABLISHED, RECV_DREQ, DREQ_RCVD, DREQ_RECEIVED, RECORD_DREQ_TID);
        on(ESTABLISHED, RECV_REJ, TIMEWAIT, REJ_RECEIVED, ENTER_TIMEWAIT);
        on(ESTABLISHED, RECV_REJ_STALE, TIMEWAIT, REJ_RECEIVED, ENTER_TIMEWAIT);
        CELLS.get(ESTABLISHED).put(ESTABLISH,
                IbCmTransition.unchanged(ESTABLISHED, IbCmTransition.Outcome.ALREADY_CONNECTED));
        on(ESTABLISHED, DESTROY, IDLE, null, SEND_DREQ_ONCE);

        on(DREQ_SENT, RECV_DREP, TIMEWAIT, DREP_RECEIVED, CANCEL_SEND, ENTER_TIMEWAIT);
        on(DREQ_SENT, RECV_DREQ, DREQ_RCVD, DREQ_RECEIVED, CANCEL_SEND, RECORD_DREQ_TID);
        on(DREQ_SENT, RETRIES_EXHAUSTED, TIMEWAIT, DREQ_ERROR, ENTER_TIMEWAIT);
        on(DREQ_SENT, RECV_REJ, TIMEWAIT, REJ_RECEIVED, CANCEL_SEND, ENTER_TIMEWAIT);
        on(DREQ_SENT, RECV_REJ_STALE, TIMEWAIT, REJ_RECEIVED, CANCEL_SEND, ENTER_TIMEWAIT);
        on(DREQ_SENT, DESTROY, IDLE, null, CANCEL_SEND);

        on(DREQ_RCVD, IbCmInput.SEND_DREP, TIMEWAIT, null, SEND_DREP, ENTER_TIMEWAIT);
        on(DREQ_RCVD, RECV_DREP, TIMEWAIT, DREP_RECEIVED, ENTER_TIMEWAIT);
        on(DREQ_RCVD, DESTROY, IDLE, null, SEND_DREP);

        on(TIMEWAIT, RECV_REQ, TIMEWAIT, null, SEND_REJ_STALE);
        on(TIMEWAIT, RECV_DREQ, TIMEWAIT, null, RESEND_DREP);
        on(TIMEWAIT, TIMEWAIT_EXPIRED, IDLE, TIMEWAIT_EXIT);
        on(TIMEWAIT, DESTROY, IDLE, null, CANCEL_TIMEWAIT);

        on(SIDR_REQ_SENT, RECV_SIDR_REP, IDLE, SIDR_REP_RECEIVED, CANCEL_SEND);
        on(SIDR_REQ_SENT, RETRIES_EXHAUSTED, IDLE, SIDR_REQ_ERROR);
        on(SIDR_REQ_SENT, DESTROY, IDLE, null, CANCEL_SEND);

        on(SIDR_REQ_RCVD, IbCmInput.SEND_SIDR_REP, IDLE, null, SEND_SIDR_REP);
        on(SIDR_REQ_RCVD, DESTROY, IDLE, null, SEND_SIDR_REP_REJECT);

        // Everything else: the default of the input's kind.
        for (IbCmState s : IbCmState.values()) {
            EnumMap<IbCmInput, IbCmTransition> row = CELLS.get(s);
            for (IbCmInput in : IbCmInput.values()) {
                row.computeIfAbsent(in, i -> IbCmTransition.unchanged(s, i.kind() == IbCmInput.Kind.CALL
                        ? IbCmTransition.Outcome.INVALID : IbCmTransition.Outcome.DISCARD));
            }
        }
    }

    private IbCmTable() {
    }

    private static void on(IbCmState from, IbCmInput input, IbCmState to, IbCmEventType event,
            IbCmAction... actions) {
        IbCmTransition previous = CELLS.get(from).put(input, IbCmTransition.apply(to, event, actions));
        if (previous != null) {
            throw new IllegalStateException("cell " + from + " × " + input + " defined twice");
        }
    }

    /** The cell for {@code input} in {@code state}. */
    public static IbCmTransition lookup(IbCmState state, IbCmInput input) {
        return CELLS.get(state).get(input);
    }

    /** Number of cells (states × inputs). */
    public static int size() {
        return IbCmState.values().length * IbCmInput.values().length;
    }

    /** Number of cells that apply a transition (the rest are defaults). */
    public static int appliedCells() {
        int n = 0;
        for (EnumMap<IbCmInput, IbCmTransition> row : CELLS.values()) {
            for (IbCmTransition t : row.values()) {
                if (t.outcome() != IbCmTransition.Outcome.DISCARD && t.outcome() != IbCmTransition.Outcome.INVALID) {
                    n++;
                }
            }
        }
        return n;
    }
}
