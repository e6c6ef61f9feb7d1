package dev.ibex.softroce.transport;

import static dev.ibex.softroce.transport.QpAttributes.einval;

import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A QP's state and everything that changes it: {@link #modify} ({@code ibv_modify_qp}, rxe's
 * {@code rxe_qp_from_attr}) checks the transition and its mask ({@link QpTransitions}), the values
 * ({@link QpAttributes}) and the paths ({@link PathMigration}), then applies all of it while neither of the QP's tasks
 * runs, so an invalid modify throws {@link dev.ibex.cm.RdmaException} EINVAL and changes nothing; {@link #error} is the
 * transport's move to ERR ({@code rxe_qp_error}); and the SQD drain flag lives here because only a transition sets it.
 *
 * <p>Threading: {@link #modify} holds the QP's modify lock (shared with multicast attachment and close); the state is
 * read lock-free by the posting thread, the receive threads and both tasks.
 */
final class QpStateMachine {
    private final SoftQueuePair qp;
    private final QpAttributes attrs;
    private final PathMigration paths;
    private final Object modifyLock;
    private final AtomicInteger state = new AtomicInteger(QpState.RESET.ordinal());
    /** RTS → SQD until the send task has finished what was posted before (then SQ_DRAINED, if asked for). */
    private volatile boolean sqDraining;

    /**
     * Made while the QP is constructed (packets may reach a registered QP before its tasks exist, and must find it in
     * RESET), so the tasks are looked up when a modify or an error needs them, not passed in.
     */
    QpStateMachine(SoftQueuePair qp, QpAttributes attrs, PathMigration paths, Object modifyLock) {
        this.qp = qp;
        this.attrs = attrs;
        this.paths = paths;
        this.modifyLock = modifyLock;
    }

    /** The state's ordinal (one volatile read). */
    int code() {
        return state.get();
    }

    boolean sqDraining() {
        return sqDraining;
    }

    /** {@code ibv_modify_qp}: all of {@code attr} or, with EINVAL, nothing. */
    void modify(QpAttr attr) {
        synchronized (modifyLock) {
            QpState cur = QpState.ofCode(state.get());
            int mask = attr.mask();
            QpState next = attr.has(QpAttr.STATE) ? attr.state() : cur;
            if (attr.has(QpAttr.CUR_STATE) && attr.curState() != cur) {
                throw einval("cur_qp_state is " + attr.curState() + " but the QP is in " + cur);
            }
            if (!QpTransitions.isValid(qp.type(), cur, next, mask)) {
                throw einval(QpTransitions.explain(qp.type(), cur, next, mask));
            }
            SoftDevice device = qp.device();
            QpAttributes.check(device, qp.type(), attr);
            Route newRoute = attr.has(QpAttr.AV) ? device.resolve(attr.ahAttr(), "ibv_modify_qp") : null;
            Route newAlt = attr.has(QpAttr.ALT_PATH) ? device.resolve(attr.altAhAttr(), "ibv_modify_qp") : null;
            String why = PathMigration.check(paths.current(), attr, next);
            if (why != null) {
                throw einval(why);
            }
            Sender sender = qp.sender();
            Responder responder = qp.responder();
            RuntimeException[] failure = new RuntimeException[1];
            sender.task().runExclusive(() -> responder.task().runExclusive(() -> {
                if (!state.compareAndSet(cur.ordinal(), next.ordinal())) {
                    failure[0] = einval("the QP changed state concurrently (now " + QpState.ofCode(state.get())
                            + ")");
                    return;
                }
                String raced = paths.apply(attr, next, newRoute, newAlt);
                if (raced != null) { // a packet changed the migration state since the check above
                    state.compareAndSet(next.ordinal(), cur.ordinal());
                    failure[0] = einval(raced);
                    return;
                }
                apply(attr, cur, next, sender, responder);
            }));
            if (failure[0] != null) {
                throw failure[0];
            }
        }
    }

    /** Applies a validated modify (the paths are done); both tasks are held. */
    private void apply(QpAttr a, QpState cur, QpState next, Sender sender, Responder responder) {
        attrs.store(a);
        switch (next) {
            case RESET -> {
                paths.reset();
                qp.sq().clear();
                if (qp.rq() != null) {
                    qp.rq().clear();
                }
                sender.reset(0);
                responder.reset(0, 0);
                sqDraining = false;
            }
            case RTR -> {
                if (cur == QpState.INIT) {
                    responder.reset(attrs.rqPsn, attrs.maxDestRdAtomic);
                }
            }
            case RTS -> {
                if (cur == QpState.RTR) {
                    sender.reset(attrs.sqPsn);
                } else {
                    sender.updateTimeout();
                }
                sqDraining = false;
            }
            case SQD -> {
                if (cur == QpState.RTS) {
                    sqDraining = true;
                }
                sender.updateTimeout();
            }
            default -> { }
        }
    }

    /** Moves the QP to ERR because the transport failed (or a CQ overran); both tasks then flush. Any thread. */
    void error() {
        for (;;) {
            int s = state.get();
            if (s == QpState.ERR.ordinal() || s == QpState.RESET.ordinal()) {
                return;
            }
            if (state.compareAndSet(s, QpState.ERR.ordinal())) {
                break;
            }
        }
        // flushing happens on the work queue: this may run on a receive thread, inside one of the tasks
        WorkQueue work = qp.device().workQueue();
        work.defer(qp.sender().task());
        work.defer(qp.responder().task());
    }

    /** Clears the draining flag once; whether SQ_DRAINED should be raised. Send task only. */
    boolean markDrained() {
        if (!sqDraining) {
            return false;
        }
        sqDraining = false;
        return attrs.enSqdAsyncNotify;
    }

    /** {@code ibv_destroy_qp}: straight to RESET, no checks and no resets (the QP is gone); both tasks are held. */
    void destroyed() {
        state.set(QpState.RESET.ordinal());
    }
}
