package dev.ibex.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {
    @Test
    void mainJobExitsZeroAndReportsProviders() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc = Main.run(new PrintStream(buf, true, StandardCharsets.UTF_8));
        assertThat(rc).isZero();
        assertThat(buf.toString(StandardCharsets.UTF_8)).startsWith("Ibex providers on the class path:");
    }
}
