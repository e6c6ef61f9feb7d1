package dev.ibex.softroce.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** GIDs, IPv4 ints and the path MTU rule (wire.md §1.1). */
class AddressingTest {
    @Test
    void ipv4Ints() throws Exception {
        InetAddress a = InetAddress.getByName("127.0.0.2");
        assertThat(Ipv4.toInt(a)).isEqualTo(0x7F000002);
        assertThat(Ipv4.toInetAddress(0xC0A80101)).isEqualTo(InetAddress.getByName("192.168.1.1"));
        assertThat(Ipv4.toString(0xFFFFFFFE)).isEqualTo("255.255.255.254");
        assertThat(Ipv4.isMulticast(Ipv4.toInt(InetAddress.getByName("239.1.2.3")))).isTrue();
        assertThat(Ipv4.isMulticast(0x7F000001)).isFalse();
        assertThatThrownBy(() -> Ipv4.toInt(InetAddress.getByName("::1"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ipv4MappedGids() throws Exception {
        Gid g = Gid.of(InetAddress.getByName("10.77.0.2"));
        assertThat(g).isEqualTo(Gid.ofIpv4(0x0A4D0002));
        assertThat(g.isIpv4Mapped()).isTrue();
        assertThat(g.ipv4()).isEqualTo(0x0A4D0002);
        assertThat(g.toString()).isEqualTo("::ffff:10.77.0.2");
        assertThat(g.toInetAddress()).isEqualTo(InetAddress.getByName("10.77.0.2"));
        MemorySegment s = MemorySegment.ofArray(new byte[17]);
        g.write(s, 1);
        assertThat(Gid.read(s, 1)).isEqualTo(g);
        assertThat(s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 11)).isEqualTo((byte) 0xFF);
        assertThat(s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 13)).isEqualTo((byte) 10);
    }

    @Test
    void ipv6Gids() throws Exception {
        InetAddress v6 = InetAddress.getByName("fe80::1:2:3:4");
        Gid g = Gid.of(v6);
        assertThat(g.isIpv4Mapped()).isFalse();
        assertThat(g.toInetAddress()).isEqualTo(v6);
        assertThat(g.toString()).isEqualTo("fe80:0:0:0:1:2:3:4");
        assertThatThrownBy(g::ipv4).isInstanceOf(IllegalStateException.class);
        assertThat(Gid.ZERO.isIpv4Mapped()).isFalse();
    }

    @Test
    void pathMtuFollowsIboeGetMtu() {
        assertThat(Mtu.fromNetdevMtu(65536)).isEqualTo(Mtu.MTU_4096);
        assertThat(Mtu.fromNetdevMtu(9000)).isEqualTo(Mtu.MTU_4096);
        assertThat(Mtu.fromNetdevMtu(4192)).isEqualTo(Mtu.MTU_4096);
        assertThat(Mtu.fromNetdevMtu(4191)).isEqualTo(Mtu.MTU_2048);
        assertThat(Mtu.fromNetdevMtu(1500)).isEqualTo(Mtu.MTU_1024);
        assertThat(Mtu.fromNetdevMtu(1120)).isEqualTo(Mtu.MTU_1024);
        assertThat(Mtu.fromNetdevMtu(1119)).isEqualTo(Mtu.MTU_512);
        assertThat(Mtu.fromNetdevMtu(352)).isEqualTo(Mtu.MTU_256);
        assertThatThrownBy(() -> Mtu.fromNetdevMtu(351)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too small");
        assertThat(Mtu.ofCode(3)).isEqualTo(Mtu.MTU_1024);
        assertThat(Mtu.ofCode(0)).isNull();
        assertThat(Mtu.ofCode(6)).isNull();
        assertThat(Mtu.MTU_2048.code()).isEqualTo(4);
    }
}
