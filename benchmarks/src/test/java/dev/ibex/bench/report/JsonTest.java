package dev.ibex.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The results' JSON (hand-written writer) and the plots drawn from a table's curves. */
class JsonTest {

    @Test
    void writesObjectsArraysEscapedStringsAndNumbersWithUnmeasuredAsNull() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a \"quoted\" \\ line\nnext\u0001");
        m.put("n", 42);
        m.put("x", 0.1234567);
        m.put("whole", 3.0);
        m.put("missing", Double.NaN);
        m.put("list", List.of(true, List.of()));
        m.put("none", null);
        assertThat(Json.write(m)).isEqualTo("""
                {
                  "name": "a \\"quoted\\" \\\\ line\\nnext\\u0001",
                  "n": 42,
                  "x": 0.123457,
                  "whole": 3,
                  "missing": null,
                  "list": [
                    true,
                    []
                  ],
                  "none": null
                }
                """);
    }

    @Test
    void aTableWritesItsRowsVerdictsAndCurvesAndDrawsEachCurve(@TempDir Path dir) throws IOException {
        RatioTable t = new RatioTable("title", "raw UDP")
                .add(new Comparison("p50 (us)", 10, 12, Target.atMost(1.3), "1.1-1.3"))
                .add(new Comparison("rate", Double.NaN, 5, Target.atLeast(0.9), "failed"))
                .note("a note")
                .curve(new Curve("sizes", "by size", "size (KiB)", "MB/s", true, false, Map.of("WRITE",
                        List.of(new Curve.Point(64, 266.7), new Curve.Point(1024, 392.3)))));
        Path json = dir.resolve("out/t.json");
        Path plots = dir.resolve("plots");
        Results.write(t, json, plots, new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));

        String text = Files.readString(json);
        assertThat(text).contains("\"metric\": \"p50 (us)\"", "\"ratio\": 1.2", "\"verdict\": \"PASS\"",
                "\"target\": \"<= 1.30\"", "\"baseline\": null", "\"verdict\": \"NO DATA\"", "\"notes\": [",
                "\"file\": \"sizes\"", "\"allMet\": false");
        assertThat(Files.readString(plots.resolve("t.json"))).isEqualTo(text);
        byte[] png = Files.readAllBytes(plots.resolve("sizes.png"));
        assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    }
}
