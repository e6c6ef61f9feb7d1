package dev.ibex.samples.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The pub/sub sample as a user runs it: this JVM publishes, three subscriber JVMs subscribe on soft-roce (each its
 * own loopback "host"), one leaves and re-joins under traffic, and every subscriber drops 2 % of what it receives
 * with soft-roce's fault injection — each must count exactly those as lost.
 */
class PubSubSampleTest {
    static final Pattern LINE = Pattern.compile("subscriber (\\d): received (\\d+), lost (\\d+) \\(dropped on purpose: "
            + "(\\d+)\\)(.*)");

    @Test
    void threeSubscriberProcessesCountExactlyWhatWasDroppedAndOneReJoins() {
        int n = 3000;
        SampleThread<PubSubSample> run = SampleThread.start(PubSubSample::new, List.of("--provider", "soft-roce",
                "--subscribers", "3", "--messages", Integer.toString(n), "--rate", "2000", "--window", "2048",
                "--loss", "0.02", "--base-address", "127.0.0.60", "--timeout", "120"));
        assertThat(run.exitCode(Duration.ofSeconds(240))).as(run.output()).isZero();
        String out = run.out();
        assertThat(out).contains("3 subscriber processes").containsPattern("published 3000 x 64 B in [0-9.]+ s")
                .contains("subscriber 2: left at #").contains("subscriber 2: re-joined in");
        int seen = 0;
        for (String line : out.lines().map(String::strip).toList()) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            seen++;
            long received = Long.parseLong(m.group(2));
            long lost = Long.parseLong(m.group(3));
            long injected = Long.parseLong(m.group(4));
            assertThat(lost).as(line).isEqualTo(injected).isPositive();
            if (m.group(1).equals("2")) {
                Matcher away = Pattern.compile("missed (\\d+) while away").matcher(m.group(5));
                assertThat(away.find()).as(line).isTrue();
                long missed = Long.parseLong(away.group(1));
                assertThat(missed).as(line).isPositive();
                assertThat(received + lost + missed).as(line).isEqualTo(n);
            } else {
                assertThat(received + lost).as(line).isEqualTo(n);
            }
            assertThat(m.group(5)).as(line).contains("latency p50").contains("p99.9");
        }
        assertThat(seen).as(out).isEqualTo(3);
    }

    @Test
    void badArgumentsAreRefused() {
        SampleThread<PubSubSample> run = SampleThread.start(PubSubSample::new, List.of("--size", "4"));
        assertThat(run.exitCode(Duration.ofSeconds(30))).isEqualTo(22);
        assertThat(run.err()).contains("--size at least 8");
    }
}
