package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * APM on the rdma-core provider against the kernel's Soft-RoCE, asserted per layer. The SPI layer's fact — rxe
 * answers EINVAL to {@code IBV_QP_ALT_PATH} although it claims {@code IBV_DEVICE_AUTO_PATH_MIG} — is
 * {@code RdmaCoreConformanceVmTest.rxeClaimsApmButLinuxRefusesAlternatePathsOnRoce}; here cm-core's
 * {@code Connection} and cm-reactive fail fast with a typed {@link PathMigrationException} (reason LINK_LAYER,
 * ENOTSUP) that says why, before the QP is touched: the QP stays MIGRATED with no alternate.
 */
@VmTest
class ApmRdmaCoreVmTest {
    static final Duration WAIT = Duration.ofSeconds(120);

    private final SoftRoceVm vm = SoftRoceVm.current();
    private EventLoopGroup loops;

    @BeforeEach
    void open() {
        loops = EventLoopGroup.open("rdma-core", ProviderConfig.DEFAULT, LoopOptions.DEFAULT.withLoops(1));
    }

    @AfterEach
    void close() {
        loops.close();
    }

    @Test
    void alternatePathsFailFastTypedOnARocePort() {
        DisposableServer server = RdmaServer.create().runOn(loops).host(vm.address()).port(0)
                .handle(c -> c.onDispose()).bindNow(WAIT);
        RdmaConnection client = RdmaClient.create().runOn(loops)
                .remoteAddress(new InetSocketAddress(vm.address(), server.port())).connectNow(WAIT);
        InetSocketAddress any = new InetSocketAddress(vm.address(), 0);
        // cm-reactive
        assertThatThrownBy(() -> client.alternatePath(any, any).block(WAIT))
                .isInstanceOfSatisfying(PathMigrationException.class, x -> {
                    assertThat(x.reason()).isEqualTo(PathMigrationException.Reason.LINK_LAYER);
                    assertThat(x.errno()).isEqualTo(Errno.ENOTSUP);
                    assertThat(x.getMessage()).contains("is RoCE").contains("InfiniBand");
                });
        assertThatThrownBy(() -> client.migrate().block(WAIT)).isInstanceOf(PathMigrationException.class);
        // cm-core
        assertThatThrownBy(() -> client.connection().alternatePath(any, any))
                .isInstanceOfSatisfying(PathMigrationException.class,
                        x -> assertThat(x.reason()).isEqualTo(PathMigrationException.Reason.LINK_LAYER));
        assertThat(client.pathMigrationState()).as("the QP was never touched").isEqualTo(MigState.MIGRATED);
        // ibv_query_qp reports an alternate path that was never loaded as zeros
        var alt = client.connection().qp().query(QpAttr.ALT_PATH).altAhAttr();
        assertThat(alt == null || alt.dgid().equals(dev.ibex.cm.spi.Gid.ZERO)).as("no alternate: %s", alt).isTrue();
        client.disconnect().block(WAIT);
        server.disposeNow(WAIT);
    }
}
