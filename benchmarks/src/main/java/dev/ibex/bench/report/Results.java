package dev.ibex.bench.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Where a harness's results go besides the table it prints: the table as JSON, and, when asked for a plot directory,
 * a PNG per measured curve and a copy of the JSON beside them (so a committed plot keeps the figures it shows).
 *
 * <p><b>Threading.</b> Stateless.
 */
public final class Results {
    private Results() {}

    /** Writes {@code table} to {@code json}; with {@code plots}, also its curves and the JSON into that directory. */
    public static void write(RatioTable table, Path json, Path plots, PrintStream out) throws IOException {
        table.writeJson(json);
        out.println("results: " + json);
        if (plots != null) {
            for (Path png : table.writePlots(plots)) {
                out.println("plot: " + png);
            }
            Path copy = plots.resolve(json.getFileName());
            if (!copy.toAbsolutePath().normalize().equals(json.toAbsolutePath().normalize())) {
                Files.createDirectories(plots);
                Files.copy(json, copy, StandardCopyOption.REPLACE_EXISTING);
                out.println("results: " + copy);
            }
        }
    }
}
