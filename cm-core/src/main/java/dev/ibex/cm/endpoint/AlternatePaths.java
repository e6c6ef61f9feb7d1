package dev.ibex.cm.endpoint;

import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.PathMigrationException.Reason;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QueuePair;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A connection's automatic path migration: resolves an alternate route with a {@link RouteLookup}, loads it into
 * the QP ({@code ALT_PATH} + {@code PATH_MIG_STATE = REARM}), watches for the QP to become ARMED (the verbs raise no
 * event for it: the QP is queried, backing off from 1 ms to 100 ms, until it is ARMED or migrates), turns PATH_MIG /
 * PATH_MIG_ERR into path events that name the path now primary, forces migrations only from ARMED, and re-arms with
 * the former primary — on request ({@link #rearm}) or, with {@code rearmAfterMigration}, after every migration.
 * Loop-confined, except {@link #state}, {@link #primary} and {@link #checkSupported}, which query the QP and the
 * device from any thread, and {@link #command}, which hands a command over to the loop.
 */
final class AlternatePaths implements RouteLookup.Callback {
    private static final long POLL_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long POLL_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Connection connection;
    private InetSocketAddress primaryLocal;
    private InetSocketAddress primaryRemote;
    private InetSocketAddress alternateLocal;
    private InetSocketAddress alternateRemote;
    /** The primary before the last migration: what {@link #rearm} loads. */
    private InetSocketAddress formerLocal;
    private InetSocketAddress formerRemote;
    private RouteLookup lookup;
    private ScheduledTask armedPoll;
    private long pollNanos;

    AlternatePaths(Connection connection) {
        this.connection = connection;
    }

    void established(InetSocketAddress local, InetSocketAddress remote) {
        // addresses only: the connection's own port stays bound by its id (a route lookup binding it again would be
        // EADDRINUSE when this path is loaded back as the alternate)
        primaryLocal = local == null ? null : new InetSocketAddress(local.getAddress(), 0);
        primaryRemote = remote == null ? null : new InetSocketAddress(remote.getAddress(), 0);
    }

    void load(InetSocketAddress local, InetSocketAddress remote) {
        cancelLookup();
        alternateLocal = local;
        alternateRemote = remote;
        lookup = new RouteLookup(connection.loop(), local, remote, connection.options().resolveTimeoutMs(), this);
        lookup.start();
    }

    @Override
    public void resolved(RouteLookup l, PathRecord route, DeviceContext device, int port) {
        if (l != lookup) {
            return;
        }
        lookup = null;
        if (connection.state() != ConnectionState.ESTABLISHED) {
            return;
        }
        try {
            LoopDevice d = connection.loopDevice();
            if (device != d.context()) {
                throw new PathMigrationException("ibv_modify_qp", Reason.LOAD_FAILED, "the alternate path leaves"
                        + " through " + device.device().name() + ", not through the connection's device "
                        + d.context().device().name() + ": APM migrates between ports of one device");
            }
            int sgidIndex = device.gidIndexOf(port, route.sgid());
            if (sgidIndex < 0) {
                throw new PathMigrationException("ibv_modify_qp", Reason.LOAD_FAILED, "no GID index on port " + port
                        + " holds " + route.sgid());
            }
            AhAttr ah = new AhAttr(route.dgid(), route.flowLabel(), sgidIndex, route.hopLimit(), route.trafficClass(),
                    route.dlid(), route.sl(), 0, route.rate(), true, port);
            QueuePair qp = connection.qp();
            QpAttr current = qp.query(QpAttr.TIMEOUT | QpAttr.PKEY_INDEX | QpAttr.PATH_MIG_STATE);
            if (current.pathMigState() == MigState.ARMED) {
                throw new PathMigrationException("ibv_modify_qp", Reason.LOAD_FAILED, "the QP is ARMED with an"
                        + " alternate path already: migrate first (the IBA loads alternates while MIGRATED or REARM)");
            }
            qp.modify(new QpAttr().altPath(ah, port, current.timeout()).altPkeyIndex(current.pkeyIndex())
                    .pathMigState(MigState.REARM));
            report(new PathEvent(PathEvent.Type.ALTERNATE_LOADED, null, primary()));
            watchForArmed();
        } catch (PathMigrationException e) {
            report(new PathEvent(PathEvent.Type.ALTERNATE_FAILED, e, primary()));
        } catch (RuntimeException e) {
            report(new PathEvent(PathEvent.Type.ALTERNATE_FAILED, new PathMigrationException(
                    "ibv_modify_qp", Reason.LOAD_FAILED, "the alternate path " + alternateLocal + " -> "
                    + alternateRemote + " could not be loaded: " + e.getMessage(), e), primary()));
        }
    }

    @Override
    public void failed(RouteLookup l, Throwable error) {
        if (l != lookup) {
            return;
        }
        lookup = null;
        if (connection.state() == ConnectionState.ESTABLISHED) {
            report(new PathEvent(PathEvent.Type.ALTERNATE_FAILED, error, primary()));
        }
    }

    /** Queries the QP until it is ARMED (event) or no longer REARM; backs off so an idle connection costs little. */
    private void watchForArmed() {
        cancelPoll();
        pollNanos = POLL_MIN_NANOS;
        armedPoll = connection.loop().schedule(this::pollArmed, pollNanos, TimeUnit.NANOSECONDS);
    }

    private void pollArmed() {
        armedPoll = null;
        if (connection.state() != ConnectionState.ESTABLISHED || connection.qp() == null) {
            return;
        }
        MigState s;
        try {
            s = connection.qp().query(QpAttr.PATH_MIG_STATE).pathMigState();
        } catch (RuntimeException e) {
            return; // the QP is going away
        }
        if (s == MigState.ARMED) {
            report(new PathEvent(PathEvent.Type.ARMED, null, primary()));
        } else if (s == MigState.REARM) {
            pollNanos = Math.min(POLL_MAX_NANOS, pollNanos * 2);
            armedPoll = connection.loop().schedule(this::pollArmed, pollNanos, TimeUnit.NANOSECONDS);
        }
    }

    void migrated() {
        cancelPoll();
        if (alternateLocal != null) {
            formerLocal = primaryLocal;
            formerRemote = primaryRemote;
            primaryLocal = alternateLocal;
            primaryRemote = alternateRemote;
        }
        report(new PathEvent(PathEvent.Type.MIGRATED, null, primary()));
        if (connection.options().rearmAfterMigration() && formerLocal != null
                && connection.state() == ConnectionState.ESTABLISHED) {
            load(formerLocal, formerRemote); // the old primary becomes the next alternate
        }
    }

    void migrationError() {
        report(new PathEvent(PathEvent.Type.MIGRATION_ERROR, new PathMigrationException(
                "ibv_get_async_event", Reason.MIGRATION_FAILED, "PATH_MIG_ERR: the QP could not migrate to its"
                + " alternate path (the alternate paths of the two ends disagree, or the local alternate port is"
                + " down)"), primary()));
    }

    /** A forced migration: only an ARMED QP can; anything else is reported as a typed MIGRATION_ERROR. */
    void force() {
        try {
            MigState s = state();
            if (s != MigState.ARMED) {
                throw new PathMigrationException("ibv_modify_qp", Reason.NOT_ARMED, "the QP is " + s + ": "
                        + (s == MigState.REARM ? "its peer has not re-armed yet (no MigReq = 0 packet arrived); load "
                                + "the alternate on both ends and let traffic flow"
                                : "load an alternate path first (alternatePath, or rearm after a migration)"));
            }
            connection.qp().modify(new QpAttr().pathMigState(MigState.MIGRATED));
        } catch (PathMigrationException e) {
            report(new PathEvent(PathEvent.Type.MIGRATION_ERROR, e, primary()));
        } catch (RuntimeException e) {
            report(new PathEvent(PathEvent.Type.MIGRATION_ERROR, new PathMigrationException(
                    "ibv_modify_qp", Reason.MIGRATION_FAILED, e.getMessage(), e), primary()));
        }
    }

    /** Loads the primary of before the last migration as the alternate again; ALTERNATE_FAILED if there is none. */
    void rearm() {
        if (formerLocal == null) {
            report(new PathEvent(PathEvent.Type.ALTERNATE_FAILED, new PathMigrationException(
                    "ibv_modify_qp", Reason.LOAD_FAILED, "nothing to re-arm with: the connection has not migrated"
                    + " (load an alternate path with alternatePath)"), primary()));
            return;
        }
        load(formerLocal, formerRemote);
    }

    /** The QP's migration state now. */
    MigState state() {
        QueuePair qp = connection.qp();
        return qp == null ? null : qp.query(QpAttr.PATH_MIG_STATE).pathMigState();
    }

    /** The QP's primary path now, or {@code null}. */
    RdmaPath primary() {
        QueuePair qp = connection.qp();
        LoopDevice d = connection.loopDevice();
        if (qp == null || d == null) {
            return null;
        }
        try {
            return RdmaPath.of(d.context(), qp.query(QpAttr.AV).ahAttr());
        } catch (RuntimeException e) {
            return null;
        }
    }

    private void cancelLookup() {
        if (lookup != null) {
            RouteLookup l = lookup;
            lookup = null;
            l.abort();
        }
    }

    private void cancelPoll() {
        if (armedPoll != null) {
            armedPoll.cancel();
            armedPoll = null;
        }
    }

    void close() {
        cancelLookup();
        cancelPoll();
    }

    /**
     * An APM command given on any thread: refused at once, typed, when the device or port cannot migrate paths
     * ({@link #checkSupported}); run on the loop only if the connection is still established by then.
     */
    void command(Runnable onLoop) {
        checkSupported();
        connection.loop().run(() -> {
            if (connection.state() == ConnectionState.ESTABLISHED) {
                onLoop.run();
            }
        });
    }

    /** Refuses, typed, when the connection's device or port cannot load an alternate path (any thread). */
    void checkSupported() {
        LoopDevice d = connection.loopDevice();
        if (d == null) {
            return;
        }
        dev.ibex.cm.spi.CmId cm = connection.cmId();
        int port = cm == null ? 1 : Math.max(1, cm.portNum());
        check(d.context(), port);
    }

    /**
     * Whether a QP on {@code port} of {@code device} can load an alternate path; a typed refusal that says why
     * otherwise (no {@code IBV_DEVICE_AUTO_PATH_MIG} — a soft device with one address has no alternate — or a
     * RoCE/iWARP port where the provider loads none).
     */
    static void check(DeviceContext device, int port) {
        String name = device.device().name();
        if (!device.queryDevice().supportsAutoPathMigration()) {
            throw new PathMigrationException("ibv_modify_qp", Reason.NO_AUTO_PATH_MIG, name
                    + " has no automatic path migration (IBV_DEVICE_AUTO_PATH_MIG is not set; a soft-roce device"
                    + " needs a second address for an alternate path); reconnect over another path instead");
        }
        if (!device.migratesPaths(port)) {
            String link = device.queryPort(port).linkLayer() == PortAttributes.LINK_LAYER_ETHERNET ? "RoCE"
                    : "not InfiniBand (iWARP?)";
            throw new PathMigrationException("ibv_modify_qp", Reason.LINK_LAYER, name
                    + " port " + port + " is " + link + ": the device claims automatic path migration, but Linux"
                    + " loads alternate paths on InfiniBand ports only (IBV_QP_ALT_PATH is EINVAL on RoCE); reconnect"
                    + " over another path instead");
        }
    }

    /** Tells the connection's handler ({@link ConnectionHandler#onPathEvent}). */
    private void report(PathEvent e) {
        Connection c = connection;
        c.safely(() -> c.handler.onPathEvent(c, e));
    }
}
