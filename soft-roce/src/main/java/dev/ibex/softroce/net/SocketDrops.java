package dev.ibex.softroce.net;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the kernel dropped because a soft port's socket buffer was full: the soft NIC's "missed" counter. Those
 * datagrams never reach Ibex (the socket is soft-roce's wire), so no Ibex counter can see them; Linux keeps a count
 * per socket, which this reads from {@code /proc/net/udp} for the sockets of this process bound to a UDP port (the
 * process's own sockets are those {@code /proc/self/fd} links to). Reading costs a walk of both tables: call it
 * for statistics, not per datagram. Stateless and thread-safe.
 */
public final class SocketDrops {
    /** Returned where the kernel does not offer the count (not Linux, or /proc not mounted). */
    public static final long UNKNOWN = -1;

    private static final Path UDP = Path.of("/proc/net/udp");
    private static final Path FDS = Path.of("/proc/self/fd");

    private SocketDrops() {}

    /**
     * Datagrams the kernel dropped on arrival at this process's UDP sockets bound to {@code udpPort} (any address: a
     * device's own socket and its group sockets), since each was opened; {@link #UNKNOWN} when unavailable.
     *
     * @param udpPort the UDP port the sockets are bound to
     * @return the drops counted by the kernel, or {@link #UNKNOWN}
     */
    public static long ofProcess(int udpPort) {
        if (!Files.isReadable(UDP) || !Files.isDirectory(FDS)) {
            return UNKNOWN;
        }
        try {
            Set<Long> mine = socketInodes();
            List<String> lines = Files.readAllLines(UDP);
            long drops = 0;
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length < 13) {
                    continue;
                }
                String local = f[1];
                int colon = local.indexOf(':');
                if (colon < 0 || Integer.parseInt(local.substring(colon + 1), 16) != udpPort) {
                    continue;
                }
                if (mine.contains(Long.parseLong(f[9]))) {
                    drops += Long.parseLong(f[f.length - 1]);
                }
            }
            return drops;
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** The inodes of the sockets this process holds ({@code /proc/self/fd/N -> socket:[inode]}). */
    private static Set<Long> socketInodes() throws IOException {
        Set<Long> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue; // closed meanwhile (the directory stream's own descriptor, for one)
                }
                if (target.startsWith("socket:[") && target.endsWith("]")) {
                    inodes.add(Long.parseLong(target, 8, target.length() - 1, 10));
                }
            }
        }
        return inodes;
    }
}
