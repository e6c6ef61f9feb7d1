package dev.ibex.softroce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.net.FreePort;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A second process on default settings: the default device takes the next free loopback address instead of failing
 * with EADDRINUSE; a device someone chose fails with a message naming the settings to change.
 */
class DefaultDevicesTest {
    final int port = FreePort.on("127.0.0.1", "127.0.0.2", "127.0.0.3");

    static String address(Fabric f) {
        return f.devices().getFirst().queryGid(1, 0).toInetAddress().getHostAddress();
    }

    @Test
    void aSecondFabricOnDefaultSettingsTakesTheNextFreeLoopbackAddress() {
        ProviderConfig defaults = ProviderConfig.of(Map.of(SoftRoceConfig.PORT, Integer.toString(port)));
        try (Fabric first = new SoftRoceProvider().open(defaults);
                Fabric second = new SoftRoceProvider().open(defaults)) {
            assertThat(address(first)).isEqualTo("127.0.0.1");
            assertThat(address(second)).isEqualTo("127.0.0.2");
            assertThat(second.devices().getFirst().device().name()).isEqualTo("soft0");
        }
    }

    @Test
    void aChosenAddressInUseFailsNamingTheSettings() {
        ProviderConfig chosen = ProviderConfig.of(Map.of(SoftRoceConfig.PORT, Integer.toString(port),
                SoftRoceConfig.DEVICES, "mine=127.0.0.3"));
        try (Fabric first = new SoftRoceProvider().open(chosen)) {
            assertThat(address(first)).isEqualTo("127.0.0.3");
            assertThatThrownBy(() -> new SoftRoceProvider().open(chosen))
                    .isInstanceOfSatisfying(RdmaException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE))
                    .hasMessageContaining("127.0.0.3:" + port)
                    .hasMessageContaining(SoftRoceConfig.DEVICES)
                    .hasMessageContaining(SoftRoceConfig.PORT);
        }
    }
}
