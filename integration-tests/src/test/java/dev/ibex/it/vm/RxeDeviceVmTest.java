package dev.ibex.it.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The kernel RDMA stack the VM tier relies on is really there: rxe devices, their ports, GIDs and tools. */
@VmTest
class RxeDeviceVmTest {

    private static final Duration TOOL_LIMIT = Duration.ofSeconds(30);
    private static final Path IB = Path.of("/sys/class/infiniband");
    private static final int GIDS_READ = 8;

    private final SoftRoceVm vm = SoftRoceVm.current();

    @Test
    void rxe0IsAnActiveRoceDeviceOnDummy0() throws IOException {
        Path port = IB.resolve(vm.device()).resolve("ports/1");
        assertThat(Files.readString(port.resolve("state"))).contains("ACTIVE");
        assertThat(Files.readString(port.resolve("link_layer")).strip()).isEqualTo("Ethernet");
        assertThat(Files.readString(IB.resolve(vm.device()).resolve("parent")).strip()).isEqualTo("dummy0");
        assertThat(gids(vm.device())).contains(SoftRoceVm.ipv4Gid(vm.address()));
    }

    @Test
    void userSpaceSeesTheDevice() {
        GuestCommand devices = GuestCommand.run(TOOL_LIMIT, "ibv_devices");
        assertThat(devices.exitCode()).as(devices.output()).isZero();
        assertThat(devices.output()).contains(vm.device());

        GuestCommand info = GuestCommand.run(TOOL_LIMIT, "ibv_devinfo", "-d", vm.device());
        assertThat(info.exitCode()).as(info.output()).isZero();
        assertThat(info.output()).contains("PORT_ACTIVE").contains("link_layer:\t\tEthernet");
    }

    @Test
    void rdmaCmAndVerbsCharacterDevicesExist() {
        assertThat(Path.of("/dev/infiniband/rdma_cm")).exists();
        try (Stream<Path> devs = list(Path.of("/dev/infiniband"))) {
            assertThat(devs.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("uverbs"));
        }
    }

    @Test
    void everyEmulatedHostHasAnActiveDevicePerFabric() throws IOException {
        assumeFalse(vm.hosts().isEmpty(), "the VM was booted without --hosts 2");
        for (VmHost h : vm.hosts()) {
            for (String[] link : new String[][] {{h.device(), h.address()}, {h.device2(), h.address2()}}) {
                Path dev = IB.resolve(link[0]);
                assertThat(Files.readString(dev.resolve("ports/1/state"))).as(link[0]).contains("ACTIVE");
                assertThat(gids(link[0])).as(link[0]).contains(SoftRoceVm.ipv4Gid(link[1]));
            }
        }
    }

    /**
     * The non-empty GIDs among the first {@value #GIDS_READ} entries of port 1 of {@code device}: an rxe
     * table has 1024 entries, each a sysfs read that costs milliseconds under TCG, and the kernel fills the
     * table from index 0 (the MAC-derived GID, then one per address of the netdev).
     */
    private static List<String> gids(String device) throws IOException {
        List<String> out = new ArrayList<>();
        Path dir = IB.resolve(device).resolve("ports/1/gids");
        for (int i = 0; i < GIDS_READ; i++) {
            String gid = Files.readString(dir.resolve(Integer.toString(i))).strip();
            if (!gid.matches("[0:]+")) {
                out.add(gid);
            }
        }
        return out;
    }

    private static Stream<Path> list(Path dir) {
        try {
            return Files.list(dir);
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + dir, e);
        }
    }
}
