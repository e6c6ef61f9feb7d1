package dev.ibex.cm.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class RemoteBufferTest {

    @Test
    void encodesSixteenBigEndianBytesAndDecodesThemBack() {
        RemoteBuffer r = new RemoteBuffer(0x1122334455667788L, 0xCAFEBABE, 4096);
        byte[] b = r.toBytes();
        assertThat(b).hasSize(RemoteBuffer.BYTES);
        assertThat(b[0]).isEqualTo((byte) 0x11);
        assertThat(b[8]).isEqualTo((byte) 0xCA);
        assertThat(b[15]).isEqualTo((byte) 0x00);
        assertThat(b[14]).isEqualTo((byte) 0x10);
        assertThat(RemoteBuffer.decode(b, 0)).isEqualTo(r);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(40);
            r.encode(s, 20);
            assertThat(RemoteBuffer.decode(s, 20)).isEqualTo(r);
            assertThatThrownBy(() -> RemoteBuffer.decode(s, 30)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void slicesStayInsideTheBuffer() {
        RemoteBuffer r = new RemoteBuffer(1000, 7, 100);
        assertThat(r.slice(10, 20)).isEqualTo(new RemoteBuffer(1010, 7, 20));
        assertThatThrownBy(() -> r.slice(90, 20)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> new RemoteBuffer(0, 0, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
