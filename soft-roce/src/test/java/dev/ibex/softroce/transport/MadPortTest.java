package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.Harness;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MadPortTest {
    record Got(byte[] mad, int localIp, int remoteIp) {}

    @Test
    void madsTravelBetweenDevicesWithTheirAddresses() throws Exception {
        try (Harness h = new Harness(); Arena arena = Arena.ofConfined()) {
            MadPort a = h.fabric.softDevices().get(0).madPort();
            MadPort b = h.fabric.softDevices().get(1).madPort();
            BlockingQueue<Got> got = new ArrayBlockingQueue<>(4);
            b.subscribe((seg, off, local, remote) -> got.add(new Got(
                    seg.asSlice(off, MadPort.MAD_SIZE).toArray(ValueLayout.JAVA_BYTE), local, remote)));
            MemorySegment mad = arena.allocate(MadPort.MAD_SIZE);
            for (int i = 0; i < MadPort.MAD_SIZE; i++) {
                mad.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            int ipA = Ipv4.toInt(InetAddress.getByName("127.0.0.2"));
            int ipB = Ipv4.toInt(InetAddress.getByName("127.0.0.3"));
            a.send(ipA, ipB, mad, 0);
            Got g = got.poll(5, TimeUnit.SECONDS);
            assertThat(g).isNotNull();
            assertThat(g.mad()).isEqualTo(mad.toArray(ValueLayout.JAVA_BYTE));
            assertThat(g.localIp()).isEqualTo(ipB);
            assertThat(g.remoteIp()).isEqualTo(ipA);
        }
    }
}
