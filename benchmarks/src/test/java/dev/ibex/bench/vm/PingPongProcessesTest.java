package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PingPongProcesses} with shell scripts for the two sides: a failing client's error shows what the server
 * printed; a client gets the limit it is given.
 */
class PingPongProcessesTest {
    /** A client gets 1 s unless given more. */
    private final PingPongProcesses pairs = new PingPongProcesses("127.0.0.1", Duration.ofSeconds(10),
            Duration.ofSeconds(1));

    /** {@code sh -c script}, the pair's arguments as $1 (server|client), $2 (ip), $3 (port) … */
    private static List<String> sides(String script) {
        return List.of("sh", "-c", script, "sides");
    }

    @Test
    @Timeout(30)
    void aFailingClientShowsTheServersOutput() {
        List<String> command = sides("""
                if [ "$1" = server ]; then echo "pingpong: listening"; echo "server saw a CONNECT_ERROR"; exit 0; fi
                echo "expected ESTABLISHED, got UNREACHABLE"; exit 1
                """);

        assertThatThrownBy(() -> pairs.run(command, 7000, 10, 64, false)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("UNREACHABLE").hasMessageContaining("server saw a CONNECT_ERROR");
    }

    @Test
    @Timeout(30)
    void aClientGivenLongerHasItsFiguresRead() {
        List<String> command = sides("""
                if [ "$1" = server ]; then echo "pingpong: listening"; exit 0; fi
                sleep 2; echo "pingpong: iterations $4, size $5, one-way typical 1.50 us, p99 2.50 us"
                """);

        assertThat(pairs.run(command, 7000, 10, 64, false, Duration.ofSeconds(20))).containsExactly(1.5, 2.5,
                Double.NaN);
    }

    @Test
    @Timeout(30)
    void aClientPastItsLimitFails() {
        List<String> command = sides("""
                if [ "$1" = server ]; then echo "pingpong: listening"; exit 0; fi
                sleep 3; echo "pingpong: iterations $4, size $5, one-way typical 1.50 us, p99 2.50 us"
                """);

        assertThatThrownBy(() -> pairs.run(command, 7000, 10, 64, false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("did not finish within 1 s");
    }

    @Test
    void aServerThatPrintsAndExitsBetweenTheTwoLooksIsSeenListening() {
        // the race CI met: the output was read empty, then the server printed and exited, then it read as not alive
        boolean[] exited = {false};
        java.util.function.Supplier<String> output = () -> {
            String now = exited[0] ? "pingpong: listening" : "";
            exited[0] = true; // the server prints and exits right after this read
            return now;
        };
        PingPongProcesses.awaitListening(() -> !exited[0], output, System.nanoTime() + 5_000_000_000L);

        long deadline = System.nanoTime() + 5_000_000_000L;
        assertThatThrownBy(() -> PingPongProcesses.awaitListening(() -> false, () -> "pingpong: no device", deadline))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("did not listen: pingpong: no device");
    }
}
