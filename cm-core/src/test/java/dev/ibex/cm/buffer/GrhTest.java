package dev.ibex.cm.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Gid;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class GrhTest {

    @Test
    void roceV2OverIpv4CarriesTheIpv4HeaderInTheLastTwentyBytes() throws Exception {
        // 20 undefined bytes (here: garbage reading as IP version 6), then 127.0.0.2 → 127.0.0.3 as rxe writes it
        byte[] grh = HexFormat.of().parseHex("6abcdef0" + "00".repeat(16)
                + "4500003c000040004011" + "0000" + "7f000002" + "7f000003");
        int check = Grh.checksum(MemorySegment.ofArray(grh));
        grh[30] = (byte) (check >> 8);
        grh[31] = (byte) check;
        MemorySegment s = MemorySegment.ofArray(grh);
        assertThat(Grh.checksum(s)).isZero();
        assertThat(Grh.isIpv4(s)).isTrue();
        assertThat(Grh.sourceGid(s)).isEqualTo(Gid.of(InetAddress.getByName("127.0.0.2")));
        grh[30] ^= 1; // a broken checksum behind a version-6 byte 0 means it is a real GRH
        assertThat(Grh.isIpv4(MemorySegment.ofArray(grh))).isFalse();
    }

    @Test
    void anIpv6GrhHasTheGidsAtEightAndTwentyFour() throws Exception {
        byte[] grh = new byte[40];
        grh[0] = 0x60;
        byte[] sgid = Gid.of(InetAddress.getByName("fe80::1")).raw();
        System.arraycopy(sgid, 0, grh, 8, 16);
        assertThat(Grh.sourceGid(MemorySegment.ofArray(grh))).isEqualTo(Gid.of(sgid));
    }
}
