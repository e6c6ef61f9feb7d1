package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PingPongProcesses} with shell scripts for the two sides: a client its server refuses gets one more try on
 * another port; any other failure shows what the server printed.
 */
class PingPongProcessesTest {
    private final PingPongProcesses pairs = new PingPongProcesses("127.0.0.1", Duration.ofSeconds(10),
            Duration.ofSeconds(10));

    /** {@code sh -c script}, the pair's arguments as $1 (server|client), $2 (ip), $3 (port) … */
    private static List<String> sides(String script) {
        return List.of("sh", "-c", script, "sides");
    }

    @Test
    @Timeout(30)
    void aRefusedClientIsTriedOnceMoreOnAnotherPort() {
        List<String> command = sides("""
                if [ "$1" = server ]; then echo "pingpong: listening on $3"; exit 0; fi
                if [ "$3" = 7000 ]; then echo "expected ESTABLISHED, got REJECTED (status 8)"; exit 1; fi
                echo "pingpong: iterations $4, size $5, one-way typical 1.50 us, p99 2.50 us (port $3)"
                """);

        assertThat(pairs.run(command, 7000, 10, 64, false)).containsExactly(1.5, 2.5, Double.NaN);
    }

    @Test
    @Timeout(30)
    void anotherFailureIsNotRetriedAndShowsTheServersOutput() {
        List<String> command = sides("""
                if [ "$1" = server ]; then echo "pingpong: listening"; echo "server saw a CONNECT_ERROR"; exit 0; fi
                echo "expected ESTABLISHED, got UNREACHABLE"; exit 1
                """);

        assertThatThrownBy(() -> pairs.run(command, 7000, 10, 64, false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("UNREACHABLE").hasMessageContaining("server saw a CONNECT_ERROR");
    }

    @Test
    @Timeout(30)
    void aClientRefusedTwiceFails() {
        List<String> command = sides("""
                if [ "$1" = server ]; then echo "pingpong: listening"; exit 0; fi
                echo "expected ESTABLISHED, got REJECTED (status 8)"; exit 1
                """);

        assertThatThrownBy(() -> pairs.run(command, 7000, 10, 64, false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REJECTED").hasMessageContaining("7100");
    }
}
