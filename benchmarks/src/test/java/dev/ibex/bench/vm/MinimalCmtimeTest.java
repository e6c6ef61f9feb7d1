package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.callback.Sides;
import dev.ibex.bench.perftest.CmtimeResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link MinimalCmtime} without the VM: its client against its server on soft-roce on loopback (two fabrics in this
 * JVM, the server's serving on a thread of its own), its tables read back as {@link CmtimeWorkloads} reads them.
 */
class MinimalCmtimeTest {

    @Test
    @Timeout(120)
    void theClientsTablesGiveEveryStepAgainstTheServer() throws Exception {
        Sides sides = LoopbackHosts.softRoce(7670);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Server server = Server.start(sides, Duration.ofSeconds(30));
                MinimalCmtime client = new MinimalCmtime(sides.provider(), sides.clientConfig(),
                        new PrintStream(bytes, true, StandardCharsets.UTF_8), Duration.ofSeconds(30))) {
            for (int run = 0; run < 2; run++) { // as --repeat 2: the second run reuses the channel and the PD
                assertThat(client.client(sides.serverAddress(), 4, 2, 2000)).isZero();
            }
        }
        String output = bytes.toString(StandardCharsets.UTF_8);

        List<CmtimeResult> tables = CmtimeResult.parseAll(output);
        assertThat(tables).hasSize(2);
        for (CmtimeResult t : tables) {
            assertThat(t.totalMillis().keySet()).containsExactlyInAnyOrder(CmtimeResult.STEPS);
            for (String step : CmtimeResult.STEPS) {
                assertThat(t.sum(step)).as(step).isPositive();
            }
        }
        assertThat(output).contains("creating id", "resolving address", "resolving route", "creating qp",
                "connecting", "disconnecting", "destroying id").doesNotContain("error");
    }

    @Test
    @Timeout(60)
    void aServerThatNeverAnswersIsAClearErrorNamingTheStep() throws Exception {
        Sides sides = LoopbackHosts.softRoce(7671);
        // listening, but nobody handles its connect requests: no ESTABLISHED ever comes
        try (MinimalCmtime deaf = new MinimalCmtime(sides.provider(), sides.serverConfig(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Duration.ofSeconds(1));
                MinimalCmtime client = new MinimalCmtime(sides.provider(), sides.clientConfig(),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        Duration.ofSeconds(1))) {
            deaf.listen(sides.serverAddress());

            assertThatThrownBy(() -> client.client(sides.serverAddress(), 2, 2, 2000))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("step 'connect'")
                    .hasMessageContaining("2 of 2 connections had no ESTABLISHED")
                    .hasMessageContaining("within 1000 ms");
        }
    }

    @Test
    void theWorkloadsChildRunsTheMinimalClientWithThePortsArguments() {
        List<String> args = List.of("-s", "169.254.77.1", "-p", "7486", "-c", "100", "--repeat", "6");
        List<String> child = CmtimeWorkloads.childCommand("java", List.of("-XX:TieredStopAtLevel=1"), List.of(), null,
                "steps-minimal-1", "benchmarks.jar", MinimalCmtime.class.getName(), args);

        assertThat(child).containsExactly("java", "-XX:TieredStopAtLevel=1", "-cp", "benchmarks.jar",
                "dev.ibex.bench.vm.MinimalCmtime", "--provider", "rdma-core", "-s", "169.254.77.1", "-p", "7486", "-c",
                "100", "--repeat", "6");
    }

    /** A {@link MinimalCmtime} server listening on the sides' server address, serving on a thread of its own. */
    private record Server(MinimalCmtime cmtime, Thread thread, CompletableFuture<Void> ended) implements AutoCloseable {
        static Server start(Sides sides, Duration limit) throws Exception {
            CompletableFuture<MinimalCmtime> listening = new CompletableFuture<>();
            CompletableFuture<Void> ended = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().daemon().name("minimal-cmtime-server").start(() -> {
                try (MinimalCmtime s = new MinimalCmtime(sides.provider(), sides.serverConfig(),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), limit)) {
                    s.listen(sides.serverAddress());
                    listening.complete(s);
                    s.serve();
                    ended.complete(null);
                } catch (Throwable e) {
                    listening.completeExceptionally(e);
                    ended.completeExceptionally(e);
                }
            });
            return new Server(listening.get(30, TimeUnit.SECONDS), t, ended);
        }

        @Override
        public void close() throws Exception {
            cmtime.stop();
            ended.get(30, TimeUnit.SECONDS);
        }
    }
}
