package dev.ibex.samples.failover;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The failover demo end to end: two cuts, each migrating both ends (there and back after the re-arm), the stream
 * carrying on with nothing lost or duplicated, and the timeline printing each step.
 */
class FailoverDemoTest {
    @Test
    void theStreamSurvivesACutAndAReArmedSecondCut() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        // the demo's timers (67 ms x 4 to detect a dead path): a shorter timeout lets a loaded machine's stall kill
        // the connection once it has migrated and has no alternate left
        int exit = FailoverDemo.run(out, new FailoverDemo.Options(1000, 14, 3, Duration.ofMillis(200),
                Duration.ofSeconds(60)));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(text).isZero();
        List<String> lines = text.lines().toList();
        assertThat(lines).filteredOn(l -> l.contains("PATH_MIG (client)")).hasSize(2);
        assertThat(lines).filteredOn(l -> l.contains("PATH_MIG (server)")).hasSize(2);
        assertThat(text).contains("PATH_MIG (client): now 127.0.0.13 -> 127.0.0.12 (port 2)")
                .contains("PATH_MIG (client): now 127.0.0.3 -> 127.0.0.2 (port 1)")
                .contains("re-arming both ends").contains("first message after the server migrated");
        assertThat(lines).filteredOn(l -> l.contains("  cut ")).hasSize(2);
        Matcher m = Pattern.compile("counts: sent (\\d+), received (\\d+), lost 0, duplicated 0").matcher(text);
        assertThat(m.find()).as(text).isTrue();
        assertThat(Long.parseLong(m.group(1))).isEqualTo(Long.parseLong(m.group(2))).isGreaterThan(200);
    }
}
