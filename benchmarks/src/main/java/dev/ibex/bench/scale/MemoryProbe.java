package dev.ibex.bench.scale;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * This process's memory as the scale benchmark reports it, in bytes: heap used after a full GC; Native Memory
 * Tracking's committed total and its Java-heap part (the JVM must run with {@code -XX:NativeMemoryTracking=summary},
 * else -1); the direct memory in use — {@code ByteBuffer.allocateDirect} and FFM {@code Arena} allocations, which in
 * an Ibex server are Ibex's own native memory (registered buffer pools, soft-roce's rings and packet buffers); and
 * the resident set (information: the JVM keeps memory it freed). Thread-safe.
 */
final class MemoryProbe {
    private static final Pattern TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern HEAP = Pattern.compile("Java Heap \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");

    private MemoryProbe() {}

    /** Collects garbage (twice, so finalizable and phantom-reachable native memory goes too) and measures. */
    static Map<String, Long> measure() {
        System.gc();
        sleep(200); // Cleaners free direct memory on their own thread after the collection
        System.gc();
        sleep(200);
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("heapAfterGc", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        long[] nmt = nmt();
        m.put("nmtCommitted", nmt[0]);
        m.put("nmtHeapCommitted", nmt[1]);
        long direct = 0;
        for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (p.getName().equals("direct")) {
                direct = p.getMemoryUsed();
            }
        }
        m.put("direct", direct);
        m.put("rss", rss());
        nmtCategories().forEach((k, v) -> m.put("nmt." + k, v));
        m.put("threads", (long) Thread.activeCount());
        return m;
    }

    /** NMT's committed total and Java heap, in bytes; -1 each when tracking is off. */
    static long[] nmt() {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            String text = String.valueOf(out);
            Matcher t = TOTAL.matcher(text);
            Matcher h = HEAP.matcher(text);
            if (t.find() && h.find()) {
                return new long[] {Long.parseLong(t.group(2)) * 1024, Long.parseLong(h.group(2)) * 1024};
            }
        } catch (Exception e) {
            // tracking off, or no diagnostic commands: unknown
        }
        return new long[] {-1, -1};
    }

    private static final Pattern CATEGORY = Pattern.compile("-\\s+([A-Za-z][A-Za-z ]*?) \\(reserved=\\d+KB, committed=(\\d+)KB");

    /** NMT's committed bytes per category ("Java Heap", "Class", "Thread", "Other" …); empty when tracking is off. */
    static Map<String, Long> nmtCategories() {
        Map<String, Long> m = new LinkedHashMap<>();
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            Matcher c = CATEGORY.matcher(String.valueOf(out));
            while (c.find()) {
                m.put(c.group(1).trim().replace(' ', '_'), Long.parseLong(c.group(2)) * 1024);
            }
        } catch (Exception e) {
            // tracking off
        }
        return m;
    }

    /** The {@code n} classes with the most bytes on the heap ({@code GC.class_histogram}): "name:bytes,…". */
    static String topClasses(int n) {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            StringBuilder b = new StringBuilder();
            int k = 0;
            for (String line : String.valueOf(out).split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 4 && f[0].endsWith(":") && k < n) {
                    b.append(k++ == 0 ? "" : ",").append(f[3]).append(':').append(f[2]);
                }
            }
            return b.toString();
        } catch (Exception e) {
            return "unavailable";
        }
    }

    /** VmRSS from /proc/self/status in bytes, -1 when not on Linux. */
    static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
