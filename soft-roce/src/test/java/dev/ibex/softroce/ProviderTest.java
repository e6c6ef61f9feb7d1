package dev.ibex.softroce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.RdmaProvider;
import dev.ibex.softroce.transport.SoftDevice;
import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderTest {
    @Test
    void foundByServiceLoaderAndAlwaysAvailable() {
        RdmaProvider p = Providers.byName("soft-roce").orElseThrow();
        ProviderStatus s = p.probe();
        assertThat(s.available()).isTrue();
        assertThat(s.devices()).isNotEmpty();
    }

    @Test
    void parsesDeviceLists() {
        var list = DeviceConfig.parseList("soft0=127.0.0.2+127.0.1.2, soft1=127.0.0.3");
        assertThat(list).hasSize(2);
        assertThat(list.get(0).addresses()).hasSize(2);
        assertThat(list.get(0).toString()).isEqualTo("soft0=127.0.0.2+127.0.1.2");
        assertThatThrownBy(() -> DeviceConfig.parseList("x=1.2.3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeviceConfig.parseList("x=127.0.0.2,y=127.0.0.2"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeviceConfig.parseList("x=224.0.0.1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeviceConfig.parseList("x")).isInstanceOf(IllegalArgumentException.class);
        // ports: '/' starts the next port, '+' adds a GID to the current one
        var ports = DeviceConfig.parseList("soft0=127.0.0.2+127.0.1.2/127.0.0.12");
        assertThat(ports.get(0).ports()).hasSize(2);
        assertThat(ports.get(0).ports().get(0)).hasSize(2);
        assertThat(ports.get(0).addresses()).hasSize(3);
        assertThat(ports.get(0).toString()).isEqualTo("soft0=127.0.0.2+127.0.1.2/127.0.0.12");
        assertThatThrownBy(() -> DeviceConfig.parseList("x=127.0.0.2/")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port with no address");
        assertThatThrownBy(() -> DeviceConfig.parseList("x=127.0.0.2/127.0.0.2"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void devicesLookLikeRxe() throws Exception {
        try (Harness h = new Harness(Map.of(SoftRoceConfig.DEVICES, "softa=127.0.0.2+127.0.1.2,softb=127.0.0.3"))) {
            assertThat(h.fabric.providerName()).isEqualTo("soft-roce");
            SoftDevice a = h.fabric.softDevices().get(0);
            assertThat(a.device().name()).isEqualTo("softa");
            DeviceAttributes d = a.queryDevice();
            assertThat(d.vendorId()).isEqualTo(0xFFFFFF);
            assertThat(d.physPortCount()).isEqualTo(1);
            assertThat(d.supportsAtomics()).isTrue();
            assertThat(d.maxQpRdAtom()).isEqualTo(128);
            assertThat(d.deviceCapFlags() & (1L << 4)).as("APM claimed: a second address").isNotZero();
            assertThat(h.fabric.softDevices().get(1).queryDevice().supportsAutoPathMigration())
                    .as("no APM with one address").isFalse();
            PortAttributes port = a.queryPort(1);
            assertThat(port.isActive()).isTrue();
            assertThat(port.linkLayer()).isEqualTo(PortAttributes.LINK_LAYER_ETHERNET);
            assertThat(port.activeMtu()).isEqualTo(Mtu.MTU_4096); // lo has MTU 65536
            assertThat(port.gidTableLength()).isEqualTo(2);
            assertThat(a.queryGid(1, 0)).isEqualTo(Gid.of(InetAddress.getByName("127.0.0.2")));
            assertThat(a.queryGid(1, 1)).isEqualTo(Gid.of(InetAddress.getByName("127.0.1.2")));
            assertThat(a.gidIndexOf(1, Gid.of(InetAddress.getByName("127.0.1.2")))).isEqualTo(1);
            assertThat(a.queryPkey(1, 0)).isEqualTo(0xFFFF);
            assertThatThrownBy(() -> a.queryGid(1, 2)).isInstanceOf(RdmaException.class);
            assertThatThrownBy(() -> a.queryPort(2)).isInstanceOf(RdmaException.class);
            assertThat(h.fabric.deviceByAddress(InetAddress.getByName("127.0.1.2"))).isSameAs(a);
            assertThat(h.fabric.deviceByAddress(InetAddress.getByName("127.0.0.3")))
                    .isSameAs(h.fabric.softDevices().get(1));
            assertThat(h.fabric.deviceByAddress(InetAddress.getByName("127.0.0.9"))).isNull();
        }
    }

    @Test
    void eventChannelsComeFromThePluggedInCm() {
        // dev.ibex.softroce.cm registers its CmService.Factory; without it createEventChannel says why
        try (Harness h = new Harness()) {
            var ch = h.fabric.createEventChannel();
            assertThat(ch.getClass().getPackageName()).isEqualTo("dev.ibex.softroce.cm");
            ch.close();
        }
    }

    @Test
    void busyPortIsATypedError() {
        try (Harness h = new Harness()) {
            String port = Integer.toString(h.fabric.config().udpPort());
            assertThatThrownBy(() -> new SoftRoceProvider().open(ProviderConfig.of(Map.of(SoftRoceConfig.PORT, port,
                    SoftRoceConfig.DEVICES, "x=127.0.0.2")))).isInstanceOf(RdmaException.class)
                    .hasMessageContaining("EADDRINUSE");
        }
    }
}
