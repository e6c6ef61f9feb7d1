package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QueuePair;
import java.net.InetSocketAddress;

/**
 * A connection's automatic path migration: resolves an alternate route with a {@link RouteLookup}, loads it into
 * the QP ({@code ALT_PATH} + {@code PATH_MIG_STATE = REARM}), turns PATH_MIG / PATH_MIG_ERR into path events and,
 * when the connection asks for it, re-arms after a migration with the former primary path. Loop-confined.
 */
final class AlternatePaths implements RouteLookup.Callback {
    private final Connection connection;
    private InetSocketAddress primaryLocal;
    private InetSocketAddress primaryRemote;
    private InetSocketAddress alternateLocal;
    private InetSocketAddress alternateRemote;
    private RouteLookup lookup;

    AlternatePaths(Connection connection) {
        this.connection = connection;
    }

    void established(InetSocketAddress local, InetSocketAddress remote) {
        primaryLocal = local;
        primaryRemote = remote;
    }

    void load(InetSocketAddress local, InetSocketAddress remote) {
        close();
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
                throw new IllegalArgumentException("the alternate path leaves through " + device.device().name()
                        + ", not through the connection's device " + d.context().device().name()
                        + ": APM migrates between ports of one device");
            }
            int sgidIndex = device.gidIndexOf(port, route.sgid());
            if (sgidIndex < 0) {
                throw new IllegalArgumentException("no GID index on port " + port + " holds " + route.sgid());
            }
            AhAttr ah = new AhAttr(route.dgid(), route.flowLabel(), sgidIndex, route.hopLimit(), route.trafficClass(),
                    route.dlid(), route.sl(), 0, route.rate(), true, port);
            QueuePair qp = connection.qp();
            QpAttr current = qp.query(QpAttr.TIMEOUT | QpAttr.PKEY_INDEX);
            qp.modify(new QpAttr().altPath(ah, port, current.timeout()).altPkeyIndex(current.pkeyIndex())
                    .pathMigState(MigState.REARM));
            connection.pathEvent(new PathEvent(PathEvent.Type.ALTERNATE_LOADED, null));
        } catch (RuntimeException e) {
            connection.pathEvent(new PathEvent(PathEvent.Type.ALTERNATE_FAILED, e));
        }
    }

    @Override
    public void failed(RouteLookup l, Throwable error) {
        if (l != lookup) {
            return;
        }
        lookup = null;
        if (connection.state() == ConnectionState.ESTABLISHED) {
            connection.pathEvent(new PathEvent(PathEvent.Type.ALTERNATE_FAILED, error));
        }
    }

    void migrated() {
        connection.pathEvent(new PathEvent(PathEvent.Type.MIGRATED, null));
        if (connection.options().rearmAfterMigration() && alternateLocal != null && primaryLocal != null
                && connection.state() == ConnectionState.ESTABLISHED) {
            // the alternate is now the primary: the old primary becomes the next alternate
            InetSocketAddress l = primaryLocal;
            InetSocketAddress r = primaryRemote;
            primaryLocal = alternateLocal;
            primaryRemote = alternateRemote;
            load(l, r);
        }
    }

    void migrationError() {
        connection.pathEvent(new PathEvent(PathEvent.Type.MIGRATION_ERROR, new RdmaException("ibv_get_async_event", 0,
                "PATH_MIG_ERR: the QP could not migrate to its alternate path (the alternate paths of the two ends "
                        + "disagree, or the alternate link is down)")));
    }

    void force() {
        try {
            connection.qp().modify(new QpAttr().pathMigState(MigState.MIGRATED));
        } catch (RuntimeException e) {
            connection.pathEvent(new PathEvent(PathEvent.Type.MIGRATION_ERROR, e));
        }
    }

    void close() {
        if (lookup != null) {
            RouteLookup l = lookup;
            lookup = null;
            l.abort();
        }
    }
}
