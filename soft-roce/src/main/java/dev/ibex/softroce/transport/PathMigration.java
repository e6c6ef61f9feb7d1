package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * An RC QP's primary and alternate paths and the IBA's path-migration state machine (IBA vol. 1 §17.2.8; the
 * software model is rdmavt + qib/hfi1, {@code shared/reference/apm.md}):
 *
 * <pre>
 *   state     set by                                      MigReq sent   on receipt
 *   MIGRATED  RESET→INIT; any migration                   1             checked against the primary path
 *   REARM     software (modify, QP ends in RTS)           0             primary; MigReq = 0 → ARMED (no event)
 *   ARMED     the wire only (REARM + a MigReq = 0 packet) 0             MigReq = 1 on the alternate → migrate
 * </pre>
 *
 * A migration (forced from ARMED by {@code path_mig_state = MIGRATED}, retries exhausted on an ARMED requester, or
 * a MigReq = 1 packet on the alternate path at an ARMED QP) makes the alternate path — route, port, P_Key index,
 * ACK timeout — the primary, leaves the alternate equal to it until software loads another, and raises
 * {@code PATH_MIG} once. Packets that match neither path are dropped; after a migration that includes the old
 * primary (rdmavt refuses it too). {@code PATH_MIG_ERR} (once per arm cycle) means the migration cannot happen: an
 * ARMED QP got a MigReq = 1 packet on a path that is neither of its own (the two ends' alternates do not mirror
 * each other), or its local alternate port is down when it must migrate.
 *
 * <p>Software rules (refused with EINVAL, nothing changed): {@code ARMED} cannot be written; {@code REARM} not from
 * ARMED, only into RTS and only with an alternate loaded; {@code MIGRATED} not from REARM, only into RTS or SQD — from
 * MIGRATED it is a no-op, as in rdmavt (the IBA calls it an error; cm-core refuses a forced migration of an unarmed
 * connection itself); an alternate path cannot be loaded while ARMED (the peer already relies on it).
 *
 * <p>Threading: the transport reads the current {@link Paths} with one volatile read and no allocation; changes are
 * compare-and-set of a new immutable snapshot — by {@code modify} (both QP tasks held), by receive threads (the wire
 * transitions) and by the send task (retries exhausted) — so each transition and its event happen exactly once.
 */
public final class PathMigration {

    /**
     * One path.
     *
     * @param route where packets go ({@code null} before RTR)
     * @param port the local port
     * @param pkeyIndex P_Key index
     * @param timeout local ACK timeout (IBA time value, 0 = infinite)
     */
    public record Path(Route route, int port, int pkeyIndex, int timeout) {
        Path withRoute(Route r) {
            return new Path(r, port, pkeyIndex, timeout);
        }
    }

    /**
     * An immutable snapshot: the two paths and the migration state.
     *
     * @param alternate {@code null} until one is loaded
     * @param errorRaised whether PATH_MIG_ERR was raised since the QP last became REARM
     * @param migrations migrations since the QP left RESET: changes with the state in one snapshot, so a requester
     *     can tell a migration made meanwhile by another thread from a QP that never was armed
     */
    public record Paths(Path primary, Path alternate, MigState state, boolean errorRaised, long migrations) {
        /** The primary route (where packets go now). */
        public Route route() {
            return primary.route();
        }

        /** The BTH MigReq bit of RC packets (qib_make_ruc_header): 1 in MIGRATED, 0 in REARM and ARMED. */
        public boolean migReq() {
            return state == MigState.MIGRATED;
        }

        Paths with(Path p, Path a, MigState s, boolean e) {
            return new Paths(p, a, s, e, migrations);
        }

        /** The alternate becomes the primary and stays the alternate until another is loaded. */
        Paths migrated() {
            return new Paths(alternate, alternate, MigState.MIGRATED, errorRaised, migrations + 1);
        }
    }

    /** What a requester whose retries ran out does. */
    public enum Exhausted {
        /** It migrated now: reset the retry count, resend on the new primary. */
        MIGRATED,
        /**
         * It was migrated during this retry cycle (the peer's MigReq = 1, or a forced migration): these retries were
         * spent on the dead path; reset the retry count, resend on the new primary.
         */
        MIGRATED_MEANWHILE,
        /** Not armed: RETRY_EXC_ERR. */
        NOT_ARMED,
        /** Armed, but the local alternate port is down: PATH_MIG_ERR was raised; RETRY_EXC_ERR. */
        ALTERNATE_UNUSABLE
    }

    private static final Paths INITIAL = new Paths(new Path(null, 1, 0, 0), null, MigState.MIGRATED, false, 0);

    private final SoftQueuePair qp;
    private final AtomicReference<Paths> current = new AtomicReference<>(INITIAL);
    private final LongAdder dropped = new LongAdder();
    /** Migrations so far, whoever caused them (the requester's retries, the peer's MigReq, a forced one). */
    private final java.util.concurrent.atomic.AtomicLong migrations = new java.util.concurrent.atomic.AtomicLong();

    PathMigration(SoftQueuePair qp) {
        this.qp = qp;
    }

    /** The current snapshot (one volatile read). */
    public Paths current() {
        return current.get();
    }

    /** Back to the initial state (QP to RESET). */
    void reset() {
        current.set(INITIAL);
    }

    // ---- modify -----------------------------------------------------------------------------------------

    /**
     * Why {@code a} may not change the path state of a QP going to {@code next}, or {@code null}. Checked before
     * anything is applied (and again atomically by {@link #apply}).
     */
    static String check(Paths s, QpAttr a, QpState next) {
        boolean loadsAlternate = a.has(QpAttr.ALT_PATH);
        if (loadsAlternate && s.state() == MigState.ARMED) {
            return "an alternate path cannot be loaded while the QP is ARMED (the peer relies on the loaded one);"
                    + " load it while MIGRATED or REARM";
        }
        if (!a.has(QpAttr.PATH_MIG_STATE)) {
            return null;
        }
        return switch (a.pathMigState()) {
            case ARMED -> "path_mig_state can be set to MIGRATED or REARM only: ARMED is entered by the CA when"
                    + " the peer's packets show it re-armed too";
            case REARM -> s.state() == MigState.ARMED ? "path_mig_state REARM: the QP is already ARMED"
                    : next != QpState.RTS ? "path_mig_state REARM needs the QP to end in RTS, not " + next
                    : s.alternate() == null && !loadsAlternate ? "path_mig_state REARM needs an alternate path"
                            + " (IBV_QP_ALT_PATH, now or before)"
                    : null;
            case MIGRATED -> s.state() == MigState.REARM ? "path_mig_state MIGRATED (forced migration) needs an"
                    + " ARMED QP; this one is REARM: its peer has not re-armed yet (no MigReq = 0 packet arrived)"
                    : next != QpState.RTS && next != QpState.SQD
                            ? "path_mig_state MIGRATED needs the QP to end in RTS or SQD, not " + next
                    : null;
        };
    }

    /**
     * Applies a checked modify's path attributes atomically: the primary route, port, P_Key index and timeout,
     * the alternate path, and the migration state; a forced migration raises PATH_MIG (or PATH_MIG_ERR when the
     * local alternate port is down). Both QP tasks are held.
     *
     * @return why it was refused after all (a wire transition raced with the modify), or {@code null}
     */
    String apply(QpAttr a, QpState next, Route newPrimary, Route newAlternate) {
        for (;;) {
            Paths s = current.get();
            String why = check(s, a, next);
            if (why != null) {
                return why;
            }
            Path p = s.primary();
            p = new Path(newPrimary != null ? newPrimary : p.route(), a.has(QpAttr.PORT) ? a.portNum() : p.port(),
                    a.has(QpAttr.PKEY_INDEX) ? a.pkeyIndex() : p.pkeyIndex(),
                    a.has(QpAttr.TIMEOUT) ? a.timeout() : p.timeout());
            Path alt = newAlternate == null ? s.alternate()
                    : new Path(newAlternate, a.altPortNum(), a.altPkeyIndex(), a.altTimeout());
            MigState state = s.state();
            boolean error = s.errorRaised();
            AsyncEventType event = null;
            if (a.has(QpAttr.PATH_MIG_STATE)) {
                MigState want = a.pathMigState();
                if (want == MigState.REARM) {
                    state = MigState.REARM;
                    error = false;
                } else if (state == MigState.ARMED) { // forced migration
                    if (usable(alt)) {
                        p = alt;
                        state = MigState.MIGRATED;
                        event = AsyncEventType.PATH_MIG;
                    } else {
                        event = AsyncEventType.PATH_MIG_ERR;
                    }
                }
            }
            if (current.compareAndSet(s, s.with(p, alt, state, error))) {
                if (event == AsyncEventType.PATH_MIG) {
                    migrations.incrementAndGet();
                }
                if (event != null) {
                    qp.raise(event);
                }
                return null;
            }
        }
    }

    // ---- the wire ---------------------------------------------------------------------------------------

    /**
     * The receive-side check of every RC packet (rdmavt {@code ruc_check_hdr}): whether to accept a packet from
     * {@code srcIp:srcPort} to {@code dstIp} carrying {@code migReq}. It must come along the primary path or, to
     * migrate, along the alternate (address and UDP port, {@link Route#carries}). An ARMED QP migrates on a
     * MigReq = 1 packet that came along its alternate path; a REARM QP becomes ARMED on a MigReq = 0 packet on its
     * primary. Any thread; allocates only on a transition.
     */
    public boolean accept(int srcIp, int srcPort, int dstIp, boolean migReq) {
        if (check(srcIp, srcPort, dstIp, migReq)) {
            return true;
        }
        dropped.increment();
        return false;
    }

    /**
     * RC packets dropped because they came along neither path (or a stale MigReq = 1 on the primary); the device's
     * {@code DropCounts.offPath} counts them too.
     */
    public long dropped() {
        return dropped.sum();
    }

    private boolean check(int srcIp, int srcPort, int dstIp, boolean migReq) {
        for (;;) {
            Paths s = current.get();
            Route primary = s.primary().route();
            boolean onPrimary = primary != null && primary.carries(srcIp, srcPort, dstIp);
            if (s.state() == MigState.ARMED && migReq) {
                Path alt = s.alternate();
                if (alt != null && alt.route().carries(srcIp, srcPort, dstIp) && usable(alt)) {
                    if (current.compareAndSet(s, s.migrated())) {
                        migrations.incrementAndGet();
                        qp.raise(AsyncEventType.PATH_MIG);
                        return true;
                    }
                    continue;
                }
                if (!onPrimary && !s.errorRaised() && primary != null
                        && srcPort == primary.destination().getPort()) {
                    // a soft-roce peer (it sends from the fabric's port; anything else is no peer of ours) migrated
                    // to a path that is not our alternate: the two ends disagree
                    if (current.compareAndSet(s, s.with(s.primary(), alt, s.state(), true))) {
                        qp.raise(AsyncEventType.PATH_MIG_ERR);
                        return false;
                    }
                    continue;
                }
                return false; // a stale MigReq = 1 packet on the primary, or an unusable alternate
            }
            if (!onPrimary) {
                return false;
            }
            if (s.state() == MigState.REARM && !migReq) {
                if (!current.compareAndSet(s, s.with(s.primary(), s.alternate(), MigState.ARMED, s.errorRaised()))) {
                    continue;
                }
            }
            return true;
        }
    }

    /**
     * How many times this QP migrated, whoever caused it: a requester compares it across a retry cycle, since a
     * migration the peer's MigReq caused meanwhile means its retries were spent on the dead path.
     */
    public long migrations() {
        return migrations.get();
    }

    /**
     * The requester's retries ran out (rdmavt {@code restart_rc}): an ARMED QP migrates (PATH_MIG) and the caller
     * resends from the oldest unacknowledged PSN with a fresh retry count; so does one that was migrated since the
     * retry cycle began; otherwise the WQE fails. One snapshot decides, so a peer's MigReq = 1 migrating the QP on the
     * receiving thread at this moment is seen as a migration, not as a QP that is no longer ARMED (that race failed
     * ApmStreamTest's connection with RETRY_EXC_ERR when both ends' retries ran out together). Send task.
     *
     * @param seenMigrations {@link Paths#migrations()} when the retry cycle began
     * @return what the requester does
     */
    public Exhausted retriesExhausted(long seenMigrations) {
        for (;;) {
            Paths s = current.get();
            if (s.migrations() != seenMigrations) {
                return Exhausted.MIGRATED_MEANWHILE;
            }
            if (s.state() != MigState.ARMED) {
                return Exhausted.NOT_ARMED;
            }
            if (!usable(s.alternate())) {
                if (!s.errorRaised()) {
                    if (!current.compareAndSet(s, s.with(s.primary(), s.alternate(), s.state(), true))) {
                        continue;
                    }
                    qp.raise(AsyncEventType.PATH_MIG_ERR);
                }
                return Exhausted.ALTERNATE_UNUSABLE;
            }
            if (current.compareAndSet(s, s.migrated())) {
                migrations.incrementAndGet();
                qp.raise(AsyncEventType.PATH_MIG);
                return Exhausted.MIGRATED;
            }
        }
    }

    @Override
    public String toString() {
        Paths s = current.get();
        return "paths{" + s.state() + " primary=" + describe(s.primary()) + " alternate=" + describe(s.alternate())
                + " dropped=" + dropped.sum() + (s.errorRaised() ? " PATH_MIG_ERR" : "") + "}";
    }

    private static String describe(Path p) {
        return p == null || p.route() == null ? "none" : dev.ibex.softroce.wire.Ipv4.toString(p.route().srcIp())
                + "->" + dev.ibex.softroce.wire.Ipv4.toString(p.route().dstIp()) + "/port" + p.port();
    }

    /** Whether the local port of {@code path} is up (a path whose local port is down cannot carry anything). */
    private boolean usable(Path path) {
        return path != null && path.route() != null && qp.device().isPortActive(path.route().port());
    }
}
