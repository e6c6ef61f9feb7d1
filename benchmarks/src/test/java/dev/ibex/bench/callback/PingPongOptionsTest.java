package dev.ibex.bench.callback;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The two-process ping-pong's server waits for a slow client's connection as long as it waits for the client at all:
 * before, the connection it accepted kept the options' 10 s connect timeout, and a cold C2-only client in the VM
 * lost its pair to it.
 */
class PingPongOptionsTest {
    @Test
    void theAcceptedConnectionsConnectTimeoutIsTheServersOpenLimit() {
        Duration open = Duration.ofMinutes(4);
        assertThat(PingPong.serverOptions(64, 16, open).connectTimeout()).isEqualTo(open);
        assertThat(PingPong.serverOptions(64, 16, open).receiveWindow()).isEqualTo(16);
        assertThat(PingPong.options(64, 16).connectTimeout()).as("the options others use are unchanged")
                .isEqualTo(dev.ibex.cm.endpoint.ConnectionOptions.DEFAULT.connectTimeout());
    }
}
