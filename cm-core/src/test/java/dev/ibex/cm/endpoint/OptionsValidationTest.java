package dev.ibex.cm.endpoint;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.loop.LoopOptions;
import org.junit.jupiter.api.Test;

/** The option setters refuse a bad value at once, naming the option (docs/getting-started.md "Where the knobs are"). */
class OptionsValidationTest {

    @Test
    void aBadOptionValueIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> ConnectionOptions.DEFAULT.withSendQueueDepth(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sendQueueDepth");
        assertThatThrownBy(() -> ConnectionOptions.DEFAULT.withReceiveWindow(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("receiveWindow");
        assertThatThrownBy(() -> ConnectionOptions.DEFAULT.withMaxMessageSize((1 << 30) + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMessageSize");
        assertThatThrownBy(() -> LoopOptions.DEFAULT.withLoops(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loops");
        assertThatThrownBy(() -> LoopOptions.DEFAULT.withCqEntries(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cqEntries");
    }
}
