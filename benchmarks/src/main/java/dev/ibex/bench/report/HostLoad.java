package dev.ibex.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's load while measuring: the load averages from {@code /proc/loadavg} and the CPU count, so that a
 * table read later says how busy the shared machine was.
 */
public final class HostLoad {
    private HostLoad() {
    }

    /** "load 9.80 9.51 10.12, 2 CPUs", or "load unknown, N CPUs" where {@code /proc} is missing. */
    public static String describe() {
        String cpus = Runtime.getRuntime().availableProcessors() + " CPUs";
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return "load " + f[0] + " " + f[1] + " " + f[2] + ", " + cpus;
        } catch (IOException | RuntimeException e) {
            return "load unknown, " + cpus;
        }
    }
}
