package dev.ibex.samples;

import dev.ibex.samples.tour.TourContext;
import dev.ibex.samples.tour.TourSection;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./ibex demo}: a tour of what Ibex does, section after section ({@link TourSections#ALL}), each on soft-roce
 * over loopback and each printing a few lines with its figures; {@code --only SECTION} runs one. Exit status 0 when
 * every section ran as it says.
 */
@Command(name = "ibex-demo", sortOptions = false,
        description = "A tour of Ibex on the soft-roce provider over loopback: the echo, RSocket, pub/sub.")
public final class Tour implements Callable<Integer> {
    @Option(names = "--only", paramLabel = "SECTION",
            description = "run only this section (see --list)")
    String only;

    @Option(names = "--list", description = "list the sections and exit")
    boolean list;

    @Option(names = "--pings", paramLabel = "N", defaultValue = "20000",
            description = "echo: measured ping-pong round trips (default: ${DEFAULT-VALUE})")
    int pings;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "64",
            description = "echo: ping and stream message size (default: ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--stream", paramLabel = "N", defaultValue = "20000",
            description = "echo: messages in the echoed stream (default: ${DEFAULT-VALUE})")
    int stream;

    @Option(names = "--writes", paramLabel = "N", defaultValue = "1000",
            description = "echo: RDMA WRITEs of --write-size bytes (default: ${DEFAULT-VALUE})")
    int writes;

    @Option(names = "--write-size", paramLabel = "BYTES", defaultValue = "65536",
            description = "echo: RDMA WRITE size, at most the buffer size (default: ${DEFAULT-VALUE})")
    int writeSize;

    @Option(names = "--requests", paramLabel = "N", defaultValue = "2000",
            description = "rsocket: measured GETs, one at a time (default: ${DEFAULT-VALUE})")
    int requests;

    @Option(names = "--messages", paramLabel = "N", defaultValue = "10000",
            description = "pub/sub: messages to publish (default: ${DEFAULT-VALUE})")
    int messages;

    @Option(names = "--rate", paramLabel = "MSGS/S", defaultValue = "20000",
            description = "pub/sub: publish rate limit (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "bound on each step (default: ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    boolean help;

    private final PrintStream out;
    private final List<TourSection> sections;

    public Tour(PrintStream out) {
        this(out, TourSections.ALL);
    }

    Tour(PrintStream out, List<TourSection> sections) {
        this.out = out;
        this.sections = sections;
    }

    @Override
    public Integer call() throws Exception {
        if (pings < 1 || stream < 1 || writes < 1 || size < 1 || writeSize < 8 || requests < 1 || messages < 1
                || !(rate > 0)) {
            throw new IllegalArgumentException("--pings, --stream, --writes, --size, --requests, --messages and --rate "
                    + "must be positive, --write-size at least 8");
        }
        if (list) {
            for (TourSection s : sections) {
                out.printf("%-8s %s%n", s.name(), s.title());
            }
            return 0;
        }
        List<TourSection> run = only == null ? sections
                : sections.stream().filter(s -> s.name().equals(only)).toList();
        if (run.isEmpty()) {
            throw new IllegalArgumentException("no section \"" + only + "\"; the sections are "
                    + sections.stream().map(TourSection::name).toList());
        }
        TourContext tour = new TourContext(out, Duration.ofSeconds(timeoutSeconds), pings, size, stream, writes,
                writeSize, requests, messages, rate);
        long t0 = System.nanoTime();
        int i = 0;
        for (TourSection s : run) {
            i++;
            out.printf(Locale.ROOT, "[%d/%d] %s: %s%n", i, run.size(), s.name(), s.title());
            long s0 = System.nanoTime();
            s.run(tour);
            out.printf(Locale.ROOT, "  (%.1f s)%n", (System.nanoTime() - s0) / 1e9);
        }
        out.printf(Locale.ROOT, "tour done in %.1f s: %s%n", (System.nanoTime() - t0) / 1e9,
                String.join(", ", run.stream().map(TourSection::name).toList()));
        return 0;
    }
}
