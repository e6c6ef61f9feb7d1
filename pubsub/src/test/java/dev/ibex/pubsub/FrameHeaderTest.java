package dev.ibex.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class FrameHeaderTest {

    @Test
    void writesAndReadsEveryFieldBigEndian() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64);
            FrameHeader.write(s, FrameKind.HEARTBEAT, 0xCAFEBABE, 0x0102030405060708L, 42);
            FrameHeader.writeHeartbeat(s, 20_000, 7);
            assertThat(s.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x49); // 'I'
            assertThat(s.get(ValueLayout.JAVA_BYTE, 1)).isEqualTo((byte) 0x50); // 'P'
            assertThat(s.get(ValueLayout.JAVA_BYTE, 8)).isEqualTo((byte) 1); // epoch's high byte first
            assertThat(FrameHeader.kind(s, FrameHeader.HEARTBEAT_LENGTH)).isEqualTo(FrameKind.HEARTBEAT);
            assertThat(FrameHeader.topic(s)).isEqualTo(0xCAFEBABE);
            assertThat(FrameHeader.epoch(s)).isEqualTo(0x0102030405060708L);
            assertThat(FrameHeader.sequence(s)).isEqualTo(42);
            assertThat(FrameHeader.intervalMicros(s)).isEqualTo(20_000);
            assertThat(FrameHeader.heartbeatNumber(s)).isEqualTo(7);
        }
    }

    @Test
    void whatIsNotAFrameOfOursIsRecognised() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64);
            FrameHeader.write(s, FrameKind.DATA, 1, 2, 3);
            assertThat(FrameHeader.kind(s, FrameHeader.LENGTH)).isEqualTo(FrameKind.DATA);
            assertThat(FrameHeader.kind(s, FrameHeader.LENGTH - 1)).as("too short").isNull();
            FrameHeader.write(s, FrameKind.CLOSE, 1, 2, 3);
            assertThat(FrameHeader.kind(s, FrameHeader.LENGTH)).as("a close without its heartbeat part").isNull();
            s.set(ValueLayout.JAVA_BYTE, 3, (byte) 9);
            assertThat(FrameHeader.kind(s, 64)).as("unknown kind").isNull();
            FrameHeader.write(s, FrameKind.DATA, 1, 2, 3);
            s.set(ValueLayout.JAVA_BYTE, 2, (byte) 2);
            assertThat(FrameHeader.kind(s, 64)).as("another version").isNull();
            s.set(ValueLayout.JAVA_BYTE, 0, (byte) 'x');
            assertThat(FrameHeader.kind(s, 64)).as("no magic").isNull();
        }
    }

    @Test
    void topicsHashIntoTheirRangeUnlessGivenAGroupAndBadGroupsAreRefused() {
        TopicGroups range = TopicGroups.hashed("239.192.0.0/20");
        Topic t = range.topic("prices");
        assertThat(t.id()).isEqualTo(Topic.idOf("prices"));
        byte[] g = t.group().getAddress().getAddress();
        assertThat(g[0] & 0xFF).isEqualTo(239);
        assertThat(g[1] & 0xFF).isEqualTo(192);
        assertThat(g[2] & 0xF0).isZero();
        assertThat(range.topic("prices")).isEqualTo(t); // the same everywhere
        assertThat(TopicGroups.single("239.9.9.9").topic("x").group())
                .isEqualTo(new InetSocketAddress("239.9.9.9", 0));
        assertThat(range.with("prices", "239.1.1.1").topic("prices").group().getAddress().getHostAddress())
                .isEqualTo("239.1.1.1");
        assertThatThrownBy(() -> range.with("prices", "10.0.0.1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an IPv4 multicast group");
        assertThatThrownBy(() -> range.with("prices", "ff0e::1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("IPv6");
        assertThatThrownBy(() -> TopicGroups.hashed("10.0.0.0/8")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TopicGroups.hashed("239.0.0.0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> range.topic("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> range.topic("x".repeat(256))).isInstanceOf(IllegalArgumentException.class);
    }
}
