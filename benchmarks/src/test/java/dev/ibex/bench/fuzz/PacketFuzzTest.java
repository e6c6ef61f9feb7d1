package dev.ibex.bench.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.transport.DropCounts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A seeded slice of the packet fuzz against live soft-roce connections (the soak benchmark runs a million packets
 * over several seeds): no escape, every kind and route used, the counters moved. A failure names the seed; replay it
 * with {@code ./ibex bench --only fuzz --seed N}.
 */
class PacketFuzzTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {20261126L, 7L})
    void hostilePacketsAgainstLiveConnectionsEscapeNothing(long seed) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PacketFuzz.Result r = PacketFuzz.run(PacketFuzz.Plan.of(seed, 15_000), new PrintStream(log, true,
                StandardCharsets.UTF_8));
        String report = r.summary() + "\n" + log.toString(StandardCharsets.UTF_8);

        assertThat(r.escapes()).as(report).isEmpty();
        assertThat(r.packets()).isEqualTo(15_000);
        assertThat(r.byKind().values()).as(report).allMatch(n -> n > 0);
        assertThat(r.byRoute().values()).as(report).allMatch(n -> n > 0);
        DropCounts d = r.drops();
        assertThat(d.malformed()).as(report).isPositive();
        assertThat(d.unknownQp()).as(report).isPositive();
        assertThat(d.offPath()).as(report).isPositive();
        assertThat(d.wrongTransport()).as(report).isPositive();
        assertThat(r.cmOffPath()).as(report).isPositive();
        assertThat(r.invalidResponses()).as(report).isPositive();
        assertThat(r.echoes()).as(report).isGreaterThan(1_000);
    }
}
