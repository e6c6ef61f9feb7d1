package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.QpAttr;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Automatic path migration over the loopback fake (which migrates as the IBA specifies). */
class ApmTest {
    static final InetSocketAddress ALT = new InetSocketAddress("10.0.0.1", 0);

    private final ConnectionLoopbackTest t = new ConnectionLoopbackTest();
    private Recorder client;
    private Connection c;
    private Connection s;

    void connect(ConnectionOptions options) throws Exception {
        t.start();
        t.listen(options, true);
        client = new Recorder();
        c = t.connect(client, null, options);
        s = t.server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void tearDown() {
        t.tearDown();
    }

    @Test
    void loadsAnAlternatePathMigratesAndReportsIt() throws Exception {
        connect(ConnectionOptions.DEFAULT);
        c.alternatePath(ALT, ALT);
        await().until(() -> client.events().contains("path ALTERNATE_LOADED"));
        FakeQp qp = (FakeQp) c.qp();
        assertThat(qp.migrationState()).as("loaded is not armed: the peer has not re-armed")
                .isEqualTo(MigState.REARM);
        assertThat(c.pathMigrationState()).isEqualTo(MigState.REARM);
        s.alternatePath(ALT, ALT);
        await().until(() -> client.events().contains("path ARMED") && t.server.events().contains("path ARMED"));
        assertThat(qp.migrationState()).isEqualTo(MigState.ARMED);
        assertThat(client.events()).containsSubsequence("path ALTERNATE_LOADED", "path ARMED");
        QpAttr a = ConnectionLoopbackTest.on(c.loop(), () -> c.qp().query(QpAttr.ALL));
        assertThat(a.altAhAttr().portNum()).isEqualTo(1);
        assertThat(a.altAhAttr().sgidIndex()).isZero();
        assertThat(a.altTimeout()).isEqualTo(14);

        qp.failPrimaryPath(); // the primary link dies: both ends migrate
        await().until(() -> client.events().contains("path MIGRATED") && t.server.events().contains("path MIGRATED"));
        assertThat(qp.migrationState()).isEqualTo(MigState.MIGRATED);
        PathEvent migrated = client.paths.stream().filter(e -> e.type() == PathEvent.Type.MIGRATED).findFirst()
                .orElseThrow();
        assertThat(migrated.primary()).as("the event names the path now primary").isNotNull();
        assertThat(migrated.primary()).isEqualTo(c.primaryPath());
        // without the re-arm policy nothing is loaded again: a second failure cannot migrate
        qp.failPrimaryPath();
        await().until(() -> client.events().contains("path MIGRATION_ERROR"));
        assertThat(client.paths.getLast().cause()).isInstanceOf(RdmaException.class)
                .hasMessageContaining("PATH_MIG_ERR");
        ConnectionLoopbackTest.send(c, "still here", 1);
        await().until(() -> t.server.messages.contains("still here"));
    }

    @Test
    void theRearmPolicyLoadsTheFormerPrimaryAfterAMigration() throws Exception {
        connect(ConnectionOptions.DEFAULT.withRearmAfterMigration(true));
        c.migrate(); // nothing loaded: a typed refusal, nothing touched
        await().until(() -> client.events().contains("path MIGRATION_ERROR"));
        assertThat(client.paths.getLast().cause()).isInstanceOfSatisfying(PathMigrationException.class,
                e -> assertThat(e.reason()).isEqualTo(PathMigrationException.Reason.NOT_ARMED));
        c.alternatePath(ALT, ALT);
        s.alternatePath(ALT, ALT);
        await().until(() -> client.events().contains("path ARMED") && t.server.events().contains("path ARMED"));
        c.migrate(); // forced migration
        await().until(() -> client.events().stream().filter("path ARMED"::equals).count() == 2
                && t.server.events().stream().filter("path ARMED"::equals).count() == 2);
        assertThat(client.events()).containsSubsequence("path ALTERNATE_LOADED", "path ARMED", "path MIGRATED",
                "path ALTERNATE_LOADED", "path ARMED");
        assertThat(((FakeQp) c.qp()).migrationState()).isEqualTo(MigState.ARMED);
    }

    @Test
    void rearmLoadsTheFormerPrimaryOnRequest() throws Exception {
        connect(ConnectionOptions.DEFAULT);
        c.rearm();
        await().until(() -> client.events().contains("path ALTERNATE_FAILED"));
        assertThat(client.paths.getLast().cause()).hasMessageContaining("has not migrated");
        c.alternatePath(ALT, ALT);
        s.alternatePath(ALT, ALT);
        await().until(() -> client.events().contains("path ARMED"));
        c.migrate();
        await().until(() -> client.events().contains("path MIGRATED") && t.server.events().contains("path MIGRATED"));
        c.rearm();
        s.rearm();
        await().until(() -> client.events().stream().filter("path ARMED"::equals).count() == 2);
        assertThat(c.pathMigrationState()).isEqualTo(MigState.ARMED);
    }

    @Test
    void anUnresolvableAlternateIsReportedNotFatal() throws Exception {
        connect(ConnectionOptions.DEFAULT);
        c.alternatePath(ALT, new InetSocketAddress("192.0.2.9", 0));
        await().until(() -> client.events().contains("path ALTERNATE_FAILED"));
        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(client.paths.getLast().cause()).isInstanceOf(dev.ibex.cm.RdmaConnectException.class);
    }

    @Test
    void aDeviceWithoutApmIsRefusedWithAClearStatement() throws Exception {
        ConnectionLoopbackTest noApm = new ConnectionLoopbackTest() {
            @Override
            void start(LoopOptions options) {
                fabric = FakeFabric.loopbackWithoutApm("10.0.0.1");
                group = EventLoopGroup.of(fabric, options.withCloseTimeout(java.time.Duration.ofSeconds(2)));
            }
        };
        noApm.start();
        noApm.listen(ConnectionOptions.DEFAULT, true);
        Recorder r = new Recorder();
        Connection x = noApm.connect(r, null, ConnectionOptions.DEFAULT);
        r.established.get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> x.alternatePath(ALT, ALT)).isInstanceOfSatisfying(PathMigrationException.class,
                e -> {
                    assertThat(e.errno()).isEqualTo(Errno.ENOTSUP);
                    assertThat(e.reason()).isEqualTo(PathMigrationException.Reason.NO_AUTO_PATH_MIG);
                }).hasMessageContaining("no automatic path migration");
        noApm.tearDown();
        t.start(); // give the shared tearDown something to close
    }

    /** Regression: rxe claims APM, the kernel then refused the alternate path with a bare EINVAL. */
    @Test
    void aRoceDeviceClaimingApmIsRefusedBeforeTheQpIsTouched() throws Exception {
        ConnectionLoopbackTest rxeLike = new ConnectionLoopbackTest() {
            @Override
            void start(LoopOptions options) {
                fabric = FakeFabric.loopbackRoceClaimingApm("10.0.0.1");
                group = EventLoopGroup.of(fabric, options.withCloseTimeout(java.time.Duration.ofSeconds(2)));
            }
        };
        rxeLike.start();
        rxeLike.listen(ConnectionOptions.DEFAULT, true);
        Recorder r = new Recorder();
        Connection x = rxeLike.connect(r, null, ConnectionOptions.DEFAULT);
        r.established.get(5, TimeUnit.SECONDS);
        assertThat(x.device().queryDevice().supportsAutoPathMigration()).isTrue();
        assertThatThrownBy(() -> x.alternatePath(ALT, ALT)).isInstanceOfSatisfying(PathMigrationException.class,
                e -> {
                    assertThat(e.errno()).isEqualTo(Errno.ENOTSUP);
                    assertThat(e.reason()).isEqualTo(PathMigrationException.Reason.LINK_LAYER);
                }).hasMessageContaining("is RoCE");
        assertThatThrownBy(x::migrate).isInstanceOf(PathMigrationException.class).hasMessageContaining("is RoCE");
        assertThatThrownBy(x::rearm).isInstanceOf(PathMigrationException.class).hasMessageContaining("is RoCE");
        assertThat(r.paths).isEmpty();
        rxeLike.tearDown();
        t.start(); // give the shared tearDown something to close
    }

    @Test
    void fatalQpEventsBreakTheConnectionAndPortEventsAreReported() throws Exception {
        connect(ConnectionOptions.DEFAULT);
        t.fabric.raise(new AsyncEvent(AsyncEventType.PORT_ERR, c.device(), null, null, null, 1));
        await().until(() -> client.events().contains("device PORT_ERR"));
        t.fabric.raise(new AsyncEvent(AsyncEventType.QP_FATAL, c.device(), c.qp(), null, null, 0));
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.events()).containsSubsequence("device PORT_ERR", "error", "closed");
        assertThat(client.error.get()).hasMessageContaining("QP_FATAL");
        t.server.closed.get(5, TimeUnit.SECONDS);
        assertThat(t.server.events()).contains("disconnected");
    }
}
