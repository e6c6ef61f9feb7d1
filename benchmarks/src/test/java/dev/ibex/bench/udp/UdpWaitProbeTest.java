package dev.ibex.bench.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** {@link UdpWaitProbe}: each variant completes its round trips, reports them, and leaves no echo thread behind. */
class UdpWaitProbeTest {
    @Test
    void eachVariantPingPongsAndEndsItsEchoThread() throws Exception {
        for (UdpWaitProbe.Variant v : UdpWaitProbe.Variant.values()) {
            UdpWaitProbe.Figure f = UdpWaitProbe.measure(v, InetAddress.getLoopbackAddress(), 300);
            assertThat(f.variant()).isEqualTo(v);
            assertThat(f.p50Micros()).as(v.name()).isPositive();
            assertThat(f.cpuMicros()).as(v.name()).isNotNegative();
            assertThat(Thread.getAllStackTraces().keySet()).as(v.name())
                    .noneMatch(t -> t.getName().equals("udp-wait-echo") && t.isAlive());
        }
    }
}
