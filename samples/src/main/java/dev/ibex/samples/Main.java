package dev.ibex.samples;

import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.RdmaProvider;
import dev.ibex.samples.Tour;
import java.io.PrintStream;
import java.util.List;
import picocli.CommandLine;

/**
 * The README's main job ({@code ./ibex demo}): lists the providers and what they see, then runs the {@link Tour} on
 * soft-roce over loopback. {@code --providers-only} stops after the list.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(System.out, args));
    }

    static int run(PrintStream out, String... args) {
        boolean listOnly = List.of(args).contains("--providers-only");
        List<RdmaProvider> providers = Providers.all();
        out.println("Ibex providers on the class path: " + providers.size());
        for (RdmaProvider p : providers) {
            ProviderStatus s = p.probe();
            out.printf("  %-10s %-13s devices=%s  %s%n", p.name(), s.available() ? "available" : "unavailable",
                    s.devices(), s.reason());
        }
        if (listOnly) {
            return 0;
        }
        CommandLine cli = new CommandLine(new Tour(out));
        cli.setOut(new java.io.PrintWriter(out, true));
        return cli.execute(args);
    }
}
