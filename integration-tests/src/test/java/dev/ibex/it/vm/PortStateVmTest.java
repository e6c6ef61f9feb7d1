package dev.ibex.it.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.RdmaCmChannel;
import dev.ibex.cm.reactive.RdmaCmEvent;
import dev.ibex.cm.reactive.RdmaDeviceEvents;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProviderConfig;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A port's link going down and up reaches Ibex as the device's PORT_ERR and PORT_ACTIVE async events on the rdma-core
 * provider: rxe raises them on its netdev's NETDEV_DOWN / NETDEV_UP ({@code rxe_port_down} / {@code rxe_port_up}).
 * An rxe device of its own on a dummy netdev, so the VM tier's rxe0 never loses its link; a raw id bound on it keeps
 * the teardown's delete a removal Ibex hears of.
 */
@VmTest
class PortStateVmTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final String NETDEV = "ibexpt0";
    static final String DEVICE = "rxept0";
    static final String ADDRESS = "10.93.0.1";

    private EventLoopGroup loops;
    private DeviceContext device;
    private RdmaCmChannel channel;
    private final List<RdmaCmEvent> rawEvents = new CopyOnWriteArrayList<>();

    @BeforeEach
    void device() {
        GuestCommand.succeed("ip", "link", "add", NETDEV, "type", "dummy");
        GuestCommand.succeed("ip", "link", "set", NETDEV, "up");
        GuestCommand.succeed("ip", "addr", "add", ADDRESS + "/24", "dev", NETDEV);
        GuestCommand.succeed("rdma", "link", "add", DEVICE, "type", "rxe", "netdev", NETDEV);
        await().atMost(WAIT).until(() -> portState().contains("ACTIVE"));
        loops = EventLoopGroup.open("rdma-core", ProviderConfig.DEFAULT, LoopOptions.DEFAULT.withLoops(1));
        device = loops.fabric().devices().stream().filter(d -> d.device().name().equals(DEVICE)).findFirst()
                .orElseThrow();
        channel = RdmaCmChannel.open(loops.next(), 16);
        CmId raw = channel.createId(PortSpace.TCP, null);
        channel.events().subscribe(rawEvents::add);
        channel.onLoop(() -> {
            raw.bind(new InetSocketAddress(ADDRESS, 0));
            return null;
        });
    }

    /**
     * Removes the device as {@link DeviceRemovalVmTest} checks it: an id bound on it hears DEVICE_REMOVAL, Ibex lets
     * the device go and the delete returns (a device no CM id uses never hears of its removal: librdmacm keeps it
     * open until the process ends); then the netdev goes.
     */
    @AfterEach
    void removeDevice() throws Exception {
        if (loops == null) {
            return;
        }
        Process delete = new ProcessBuilder("rdma", "link", "delete", DEVICE).redirectErrorStream(true).start();
        boolean deleted = false;
        try {
            await().atMost(WAIT).until(() -> rawEvents.stream().anyMatch(e -> e.type() == CmEventType.DEVICE_REMOVAL));
            channel.close();
            deleted = delete.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
        } finally {
            loops.close();
            deleted = deleted || delete.waitFor(30, TimeUnit.SECONDS);
            if (deleted) {
                GuestCommand.run(WAIT, "ip", "link", "delete", NETDEV);
            }
        }
        assertThat(deleted).as("rdma link delete " + DEVICE + " returned").isTrue();
    }

    @Test
    void linkDownIsPortErrAndLinkUpIsPortActive() {
        List<AsyncEvent> events = new CopyOnWriteArrayList<>();
        var subscription = RdmaDeviceEvents.of(loops, device).subscribe(events::add);
        try {
            GuestCommand.succeed("ip", "link", "set", NETDEV, "down");
            await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ERR));
            assertThat(device.queryPort(1).isActive()).as("the port after PORT_ERR").isFalse();

            GuestCommand.succeed("ip", "link", "set", NETDEV, "up");
            await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ACTIVE));
            assertThat(events).extracting(AsyncEvent::type)
                    .containsSubsequence(AsyncEventType.PORT_ERR, AsyncEventType.PORT_ACTIVE);
            assertThat(events).filteredOn(e -> e.type() == AsyncEventType.PORT_ERR
                    || e.type() == AsyncEventType.PORT_ACTIVE).allSatisfy(e -> {
                        assertThat(e.device()).isSameAs(device);
                        assertThat(e.port()).isEqualTo(1);
                    });
            await().atMost(WAIT).until(() -> device.queryPort(1).isActive());
        } finally {
            subscription.dispose();
        }
    }

    private static String portState() throws java.io.IOException {
        return Files.readString(Path.of("/sys/class/infiniband", DEVICE, "ports/1/state"));
    }

}
