package dev.ibex.bench.vm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A JDK AOT cache (JEP 483, made in one step as JEP 514 allows) for the child JVMs of {@link VmBench}'s
 * {@code steps} and {@code accept} workloads ({@link CmtimeWorkloads}, {@code --aot}): a training JVM runs the workload with
 * {@code -XX:AOTCacheOutput=FILE} and, at its exit, writes the classes it loaded and linked — the LambdaForm and
 * method-handle classes of the FFM downcalls it made among them — into FILE; a measured JVM started with
 * {@code -XX:AOTCache=FILE} begins with them loaded and linked.
 *
 * <p>What must match between training and use (JDK 25.0.3, tried on this host): the JDK, the class path (the
 * training one a prefix of the used one), the module options — {@code --enable-native-access}, and
 * {@code -XX:StartFlightRecording}, which adds {@code jdk.jfr} ({@code --profile} records the training JVM too) —
 * and the heap's layout ({@code -XX:-UseCompressedOops} refuses the cache). The child JVMs copy this JVM's flags, so
 * the training and the measured child differ only in the AOT flag ({@link #commandsMatch}). A JVM that cannot use its
 * cache (missing, corrupt, made with other flags) runs without it and prints {@code [error][aot]} lines, which
 * {@link #problem} finds: the workload notes it and keeps no cold+AOT figure for that JVM. Temurin 25.0.3 does not
 * reject a cache whose jar changed after training (a two-class test ran the stale classes): the bench trains in the
 * same run, from the same jar.
 */
final class AotCache {
    /** The flag that makes a training JVM write the cache at exit. */
    static final String OUTPUT = "-XX:AOTCacheOutput=";
    /** The flag that makes a JVM start from the cache. */
    static final String USE = "-XX:AOTCache=";

    /** What the JVM logs when it cannot use the cache it was given (unified logging, level error, tag aot). */
    private static final Pattern REFUSED = Pattern.compile("\\[error\\s*]\\[aot");

    private AotCache() {
    }

    /** The flags of a training JVM that writes its cache to {@code cache} when it exits. */
    static List<String> trainingFlags(Path cache) {
        return List.of(OUTPUT + cache.toAbsolutePath());
    }

    /** The flags of a JVM that starts from {@code cache}. */
    static List<String> useFlags(Path cache) {
        return List.of(USE + cache.toAbsolutePath());
    }

    /**
     * Whether a flag of the bench's own JVM is passed on to its child JVMs: not its JFR recording (a child gets its
     * own with {@code --profile}) and not its own AOT or CDS archive settings, which would fight the child's.
     */
    static boolean inherited(String flag) {
        return !flag.startsWith("-XX:StartFlightRecording") && !flag.startsWith("-XX:AOTCache")
                && !flag.startsWith("-XX:AOTMode") && !flag.startsWith("-XX:AOTConfiguration")
                && !flag.startsWith("-XX:SharedArchiveFile") && !flag.startsWith("-Xshare");
    }

    /**
     * The first line of a JVM's output saying it could not use its AOT cache (so it ran without one), or
     * {@code null} when it printed none.
     */
    static String problem(String output) {
        for (String line : output.lines().toList()) {
            if (REFUSED.matcher(line).find()) {
                return line.strip();
            }
        }
        return null;
    }

    /**
     * Whether a training command and a use command differ only in their AOT flag and in the JFR file they record to:
     * what the JDK checks (module options, heap layout, class path) is then the same in both.
     */
    static boolean commandsMatch(List<String> training, List<String> use) {
        return normalized(training).equals(normalized(use));
    }

    private static List<String> normalized(List<String> command) {
        List<String> out = new ArrayList<>();
        for (String a : command) {
            if (a.startsWith(OUTPUT) || a.startsWith(USE)) {
                out.add("<aot>");
            } else if (a.startsWith("-XX:StartFlightRecording")) {
                out.add("<jfr>");
            } else {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * A copy of the trained cache on the JVM's temporary directory. The results directory the training writes to is
     * a 9p share in the guest (read over virtio at every page fault); a user's cache sits on a local disk, so the
     * measured JVM maps a copy on the guest's tmpfs.
     */
    static Path localCopy(Path trained) {
        try {
            Path dir = Files.createTempDirectory("ibex-aot");
            return Files.copy(trained, dir.resolve(trained.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the AOT cache " + trained, e);
        }
    }

    /** Whether {@code cache} exists and is not empty (a training JVM that died writes none). */
    static boolean written(Path cache) {
        try {
            return Files.isRegularFile(cache) && Files.size(cache) > 0;
        } catch (IOException e) {
            return false;
        }
    }
}
