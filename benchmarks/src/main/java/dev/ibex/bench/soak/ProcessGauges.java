package dev.ibex.bench.soak;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * This JVM's footprint as the soak samples it: committed native memory from Native Memory Tracking (the JMX face of
 * {@code jcmd PID VM.native_memory summary}; the JVM must run with {@code -XX:NativeMemoryTracking=summary}), heap used
 * after a full GC, live threads, open file descriptors and RSS ({@code /proc/self}).
 *
 * <p>Threading: any thread.
 */
final class ProcessGauges {
    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern NMT_CATEGORY = Pattern.compile("-\\s+(.+?) \\(reserved=\\d+KB, committed=(\\d+)KB");
    /** What follows the heap's size or the JIT's work, not the application's: left out of the native figure. */
    private static final java.util.Set<String> NOT_NATIVE = java.util.Set.of("Java Heap", "GC", "Compiler",
            "Arena Chunk");

    private ProcessGauges() {}

    /**
     * Committed native memory in KiB outside the Java heap, the GC's structures (which follow the heap's size) and the
     * JIT compiler's scratch arenas (which come and go with compilations) — what registered memory, direct buffers,
     * threads, classes and code add up to — or -1 when NMT is off.
     */
    static long nmtCommittedKb() {
        String out = nmtSummary();
        Matcher m = NMT_TOTAL.matcher(out);
        if (!m.find()) {
            return -1;
        }
        long total = Long.parseLong(m.group(2));
        Matcher c = NMT_CATEGORY.matcher(out);
        while (c.find()) {
            if (NOT_NATIVE.contains(c.group(1).strip())) {
                total -= Long.parseLong(c.group(2));
            }
        }
        return total;
    }

    /** The NMT summary text (or what the JVM says instead, e.g. that tracking is not enabled). */
    static String nmtSummary() {
        try {
            return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        } catch (JMException e) {
            return "NMT unavailable: " + e;
        }
    }

    /** Heap used after full GCs, in KiB. */
    static long heapAfterGcKb() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1024;
    }

    static long threads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** Open file descriptors, or -1 when {@code /proc/self/fd} cannot be read. */
    static long fds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (IOException | UnsupportedOperationException e) {
            return -1;
        }
    }

    /** Resident set in KiB, or -1. */
    static long rssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("\\D+", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return -1;
    }
}
