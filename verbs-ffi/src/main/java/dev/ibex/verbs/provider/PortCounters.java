package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.RdmaCounter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * What the kernel counts per port, for metrics: every readable file of
 * {@code /sys/class/infiniband/<device>/ports/<n>/counters} (as {@code port.<file>}, e.g.
 * {@code port.port_rcv_packets}; the {@code *_data} ones count 4-byte words, as the IB spec's PortCounters do) and of
 * {@code hw_counters} (as {@code hw.<file>}, e.g. rxe's {@code hw.rcvd_rnr_err}, {@code hw.send_retry_exceeded_err}).
 * Each is read from sysfs when it is read; a directory that is absent or unreadable gives no counters, a file that
 * stops being readable keeps its last value. Nothing per QP: the kernel has no per-QP figures to offer.
 *
 * <p>Threading: any thread (each read is one small file read).
 */
final class PortCounters {
    /** {@code hw_counters} entries that are not counters (rdma-core's {@code lifespan} is a setting). */
    private static final List<String> NOT_COUNTERS = List.of("lifespan");

    private PortCounters() {}

    /** The counters of {@code devices} under the sysfs root {@code root} ({@code /sys/class/infiniband}). */
    static List<RdmaCounter> of(Path root, List<String> devices) {
        List<RdmaCounter> all = new ArrayList<>();
        for (String device : devices) {
            Path ports = root.resolve(device).resolve("ports");
            for (Path port : list(ports)) {
                Map<String, String> tags = Map.of("device", device, "port", port.getFileName().toString());
                add(all, port.resolve("counters"), "port.", tags);
                add(all, port.resolve("hw_counters"), "hw.", tags);
            }
        }
        return all;
    }

    private static void add(List<RdmaCounter> all, Path dir, String prefix, Map<String, String> tags) {
        for (Path f : list(dir)) {
            String file = f.getFileName().toString();
            if (NOT_COUNTERS.contains(file) || !Files.isRegularFile(f) || !Files.isReadable(f) || read(f) < 0) {
                continue;
            }
            AtomicLong last = new AtomicLong();
            all.add(new RdmaCounter(prefix + file.toLowerCase(java.util.Locale.ROOT), "the kernel's " + dir.getFileName()
                    + "/" + file + " of this port", tags, () -> {
                        long v = read(f);
                        return v < 0 ? last.get() : last.accumulateAndGet(v, Math::max);
                    }));
        }
    }

    private static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }

    /** The file's value, or -1 when it cannot be read or is not a number. */
    private static long read(Path f) {
        try {
            return Long.parseLong(Files.readString(f).trim());
        } catch (IOException | NumberFormatException | SecurityException e) {
            return -1;
        }
    }
}
