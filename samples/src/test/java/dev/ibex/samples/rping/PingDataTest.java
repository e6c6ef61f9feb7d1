package dev.ibex.samples.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class PingDataTest {

    @Test
    void theFirstPingIsWhatTheCClientWrites() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(64);
            PingData.fill(buf, 64, 0, PingData.FIRST);
            // 13 bytes of prefix, 50 letters from 'A', the NUL in byte 63
            assertThat(PingData.string(buf, 64))
                    .isEqualTo("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr");
            assertThat(buf.get(ValueLayout.JAVA_BYTE, 63)).isZero();
            assertThat(PingData.strlen(buf, 64)).isEqualTo(63);
        }
    }

    @Test
    void lettersWrapFromZToAAndEachPingStartsOneLater() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(100);
            int start = PingData.FIRST;
            for (int i = 0; i < 57; i++) {
                start = PingData.next(start);
            }
            assertThat(start).isEqualTo('z');
            PingData.fill(buf, 100, 57, start);
            assertThat(PingData.string(buf, 100)).startsWith("rdma-ping-57: zABC");
            assertThat(PingData.next(start)).isEqualTo('A');
        }
    }

    @Test
    void aStringWithoutNulEndsAtTheLimit() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(4).fill((byte) 'x');
            assertThat(PingData.string(buf, 4)).isEqualTo("xxxx");
        }
    }
}
