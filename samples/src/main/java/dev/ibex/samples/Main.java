package dev.ibex.samples;

import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.RdmaProvider;
import java.io.PrintStream;
import java.util.List;

/** The README's main job. Until the demo lands it prints what each provider sees. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(System.out));
    }

    static int run(PrintStream out) {
        List<RdmaProvider> providers = Providers.all();
        out.println("Ibex providers on the class path: " + providers.size());
        for (RdmaProvider p : providers) {
            ProviderStatus s = p.probe();
            out.printf("  %-10s %-13s devices=%s  %s%n", p.name(), s.available() ? "available" : "unavailable",
                    s.devices(), s.reason());
        }
        return 0;
    }
}
