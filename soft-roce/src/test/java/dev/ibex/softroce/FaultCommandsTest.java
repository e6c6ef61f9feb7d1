package dev.ibex.softroce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.softroce.net.FaultInjector;
import dev.ibex.softroce.net.FreePort;
import dev.ibex.softroce.transport.SoftDevice;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fault commands, in process and through a watched control file (how a path is cut from outside the JVM). */
class FaultCommandsTest {
    @TempDir
    Path dir;

    private static int ip(String s) throws Exception {
        return dev.ibex.softroce.wire.Ipv4.toInt(InetAddress.getByName(s));
    }

    @Test
    void commandsCutAndHealPathsTakePortsDownAndSetTheKnobs() throws Exception {
        int port = FreePort.on("127.0.0.2", "127.0.0.12", "127.0.0.3");
        try (Harness h = new Harness(Map.of(SoftRoceConfig.PORT, Integer.toString(port), SoftRoceConfig.DEVICES,
                "softa=127.0.0.2/127.0.0.12,softb=127.0.0.3"))) {
            FaultCommands c = h.fabric.faultCommands();
            FaultInjector f = h.fabric.faults();
            assertThat(c.apply("cut 127.0.0.2 127.0.0.3  # the primary")).isEqualTo("cut 127.0.0.2 <-> 127.0.0.3");
            assertThat(f.isBlackHoled(ip("127.0.0.2"), ip("127.0.0.3"))).isTrue();
            assertThat(f.isBlackHoled(ip("127.0.0.3"), ip("127.0.0.2"))).as("either end's process").isTrue();
            c.apply("heal 127.0.0.3 127.0.0.2");
            assertThat(f.isBlackHoled(ip("127.0.0.2"), ip("127.0.0.3"))).isFalse();
            SoftDevice a = h.fabric.softDevices().get(0);
            assertThat(c.apply("port softa 2 down")).isEqualTo("port softa/2 down");
            assertThat(a.isPortActive(2)).isFalse();
            c.apply("port softa 2 up");
            assertThat(a.isPortActive(2)).isTrue();
            assertThat(c.apply("port elsewhere 1 down")).as("another process's device").isNull();
            assertThat(c.apply("   ")).isNull();
            assertThat(c.apply("# nothing")).isNull();
            c.apply("drop 0.5");
            c.apply("reorder 0.1 500");
            c.apply("duplicate 0.01");
            c.apply("delay 10");
            c.apply("reset");
            assertThat(f.isBlackHoled(ip("127.0.0.2"), ip("127.0.0.3"))).isFalse();
            assertThatThrownBy(() -> c.apply("cut 127.0.0.2")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cut|heal A B");
            assertThatThrownBy(() -> c.apply("drop 2")).hasMessageContaining("not in [0, 1]");
            assertThatThrownBy(() -> c.apply("port softa two down")).hasMessageContaining("whole number");
            assertThatThrownBy(() -> c.apply("port softa 3 down")).hasMessageContaining("ports 1..2");
            assertThatThrownBy(() -> c.apply("unplug everything")).hasMessageContaining("unknown fault command");
        }
    }

    @Test
    void aWatchedControlFileAppliesAppendedLinesInOrder() throws Exception {
        Path ctl = dir.resolve("faults.ctl");
        Files.writeString(ctl, "cut 127.0.0.2 127.0.0.3\n");
        try (Harness h = new Harness(Map.of("ibex.softroce.fault.control", ctl.toString()))) {
            FaultInjector f = h.fabric.faults();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> f.isBlackHoled(ip("127.0.0.2"), ip("127.0.0.3")));
            Files.writeString(ctl, "bogus line\nheal 127.0.0.2 127.0.0.3\nport softb 1 do", StandardOpenOption.APPEND);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !f.isBlackHoled(ip("127.0.0.2"), ip("127.0.0.3")));
            SoftDevice b = h.fabric.softDevices().get(1);
            assertThat(b.isPortActive(1)).as("a line is applied once it is complete").isTrue();
            Files.writeString(ctl, "wn\n", StandardOpenOption.APPEND);
            await().atMost(Duration.ofSeconds(10)).until(() -> !b.isPortActive(1));
        }
    }
}
