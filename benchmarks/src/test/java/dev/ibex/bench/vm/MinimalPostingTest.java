package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.endpoint.ReceiveMode;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.SendFlags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The switches that make {@link MinimalPingPong} post as Ibex's connections do (inline SENDs, receives from an SRQ) and
 * {@link PingPongJvm} post as the minimal program does (no inline, receives on its own window): off, each posts as before (the figures taken
 * before the switches stay comparable); on, the QP and the SEND change as named, and the settings line says so.
 */
class MinimalPostingTest {
    @Test
    void byDefaultTheMinimalProgramPostsAsPingpongC() {
        assertThat(MinimalPingPong.INLINE).isFalse();
        assertThat(MinimalPingPong.SRQ).isFalse();
        assertThat(MinimalPingPong.cap(64, false, false)).isEqualTo(new QpCap(16, 16, 1, 1, 0));
        assertThat(MinimalPingPong.sendFlags(false)).isEqualTo(SendFlags.SIGNALED);
        assertThat(MinimalPingPong.settingsLine(false, false))
                .isEqualTo("pingpong settings: minimal, inline SENDs false, SRQ receives false");
    }

    @Test
    void postingIbexsWayInlinesTheMessageAndLeavesTheQpNoReceiveQueue() {
        assertThat(MinimalPingPong.cap(64, true, false).maxInlineData()).isEqualTo(64);
        assertThat(MinimalPingPong.sendFlags(true)).isEqualTo(SendFlags.SIGNALED | SendFlags.INLINE);
        assertThat(MinimalPingPong.cap(64, false, true).maxRecvWr()).as("receives come from the SRQ").isZero();
        assertThat(MinimalPingPong.settingsLine(true, true)).endsWith("inline SENDs true, SRQ receives true");
    }

    @Test
    void ibexWithoutInlineOrWithoutItsSrqNamesItAndTheDefaultLineIsUnchanged() {
        assertThat(PingPongJvm.MAX_INLINE).as("unset: the ping-pong's own options").isNegative();
        assertThat(PingPongJvm.OWN_WINDOW).as("unset: the loop's shared receive queue").isFalse();
        assertThat(PingPongJvm.settingsLine(false)).isEqualTo(PingPongJvm.settingsLine(false, -1, false))
                .doesNotContain("max inline").doesNotContain("own receive window");
        assertThat(PingPongJvm.settingsLine(false, 0, true)).endsWith(", max inline 0, own receive window (no SRQ)");
        assertThat(PingPongJvm.options(64, 0, false).maxInline()).isZero();
        assertThat(PingPongJvm.options(64, -1, false).maxInline()).isEqualTo(64);
        assertThat(PingPongJvm.options(64, -1, false).receiveMode()).isEqualTo(ReceiveMode.SHARED);
        assertThat(PingPongJvm.options(64, -1, true).receiveMode()).isEqualTo(ReceiveMode.WINDOW);
    }

    @Test
    void theFootprintSwitchesAreOffByDefaultAndTouchOneLongInEachPage() {
        assertThat(MinimalPingPong.TOUCH_PAGES).isZero();
        assertThat(MinimalPingPong.LOOK).isZero();
        assertThat(MinimalPingPong.footprintSettings(0, 0)).isEmpty();
        assertThat(MinimalPingPong.footprintSettings(64, 16))
                .isEqualTo(", touching 64 pages per round trip, a look at the poller every 16 empty polls");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pages = arena.allocate(4 * 4096L, 4096);
            MinimalPingPong.touch(pages, 3, 0);
            MinimalPingPong.touch(pages, 3, 1);
            for (int p = 0; p < 3; p++) {
                assertThat(pages.get(ValueLayout.JAVA_LONG, p * 4096L)).as("page %d, round 0", p).isEqualTo(1);
                assertThat(pages.get(ValueLayout.JAVA_LONG, p * 4096L + 8)).as("page %d, round 1", p).isEqualTo(1);
            }
            assertThat(pages.get(ValueLayout.JAVA_LONG, 3 * 4096L)).as("the fourth page is not touched").isZero();
        }
    }
}
