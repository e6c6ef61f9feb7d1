package dev.ibex.cm.reactive;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wiretap of a server's or client's connections (reactor-netty's {@code wiretap(true)}): CM outcomes, connection
 * events and every message sent and received, at DEBUG under its own logger ({@code dev.ibex.wiretap.server} or
 * {@code .client} by default), each line prefixed with the connection ({@code [loop local -> remote]}); messages
 * optionally with a hex dump of their first bytes. Nothing is formatted unless the logger is enabled for DEBUG.
 * Immutable; called on the connection's loop.
 */
final class WireLog {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final int ROW = 16;

    private final Logger log;
    private final int dumpLimit;

    /**
     * @param category the logger name
     * @param dumpLimit how many bytes of each message to hex-dump (0: none, only the length)
     */
    WireLog(String category, int dumpLimit) {
        if (dumpLimit < 0) {
            throw new IllegalArgumentException("the hex dump limit must not be negative, got " + dumpLimit);
        }
        this.log = LoggerFactory.getLogger(category);
        this.dumpLimit = dumpLimit;
    }

    /** The default wiretap of a component ({@code "server"} or {@code "client"}): 64 bytes dumped. */
    static WireLog of(String component) {
        return new WireLog("dev.ibex.wiretap." + component, 64);
    }

    boolean enabled() {
        return log.isDebugEnabled();
    }

    /** The prefix of every line about a connection. */
    static String prefix(RdmaConnection c) {
        return "[" + c.loop() + " " + format(c.localAddress()) + (c.isPassive() ? " <- " : " -> ")
                + format(c.remoteAddress()) + "]";
    }

    static String format(InetSocketAddress a) {
        return a == null ? "?" : a.getAddress() == null ? a.getHostString() + ":" + a.getPort()
                : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    /** A connection event (ESTABLISHED, DISCONNECTED, ERROR with its cause, path events, CLOSED). */
    void event(RdmaConnection c, ConnectionEvent e) {
        if (!log.isDebugEnabled()) {
            return;
        }
        if (e.cause() != null) {
            log.debug("{} {}: {}", prefix(c), e.type(), e.cause().toString());
        } else if (e.deviceEvent() != null) {
            log.debug("{} {} {}", prefix(c), e.type(), e.deviceEvent().type());
        } else if (e.path() != null) {
            log.debug("{} {} {}", prefix(c), e.type(), e.path());
        } else {
            log.debug("{} {}", prefix(c), e.type());
        }
    }

    /** Something about a connection attempt or request that has no connection object yet. */
    void cm(String what, InetSocketAddress peer, Object detail) {
        if (log.isDebugEnabled()) {
            log.debug("[{}] {}{}", format(peer), what, detail == null ? "" : ": " + detail);
        }
    }

    /** A message of {@code total} bytes whose first bytes are {@code length} bytes of {@code segment} at {@code offset}. */
    void message(RdmaConnection c, String direction, MemorySegment segment, long offset, int length, long total) {
        if (!log.isDebugEnabled()) {
            return;
        }
        if (dumpLimit == 0 || segment == null) {
            log.debug("{} {}: {}B", prefix(c), direction, total);
        } else {
            log.debug("{} {}: {}B\n{}", prefix(c), direction, total, dump(segment, offset,
                    (int) Math.min(length, dumpLimit), total));
        }
    }

    /** Rows of 16 bytes: offset, hex, printable ASCII; a last line says how many bytes were not shown. */
    static String dump(MemorySegment segment, long offset, int n, long total) {
        StringBuilder sb = new StringBuilder((n / ROW + 2) * 80);
        for (int row = 0; row < n; row += ROW) {
            if (row > 0) {
                sb.append('\n');
            }
            sb.append(String.format("%04x  ", row));
            StringBuilder ascii = new StringBuilder(ROW);
            for (int i = 0; i < ROW; i++) {
                if (row + i < n) {
                    int b = segment.get(ValueLayout.JAVA_BYTE, offset + row + i) & 0xFF;
                    sb.append(HEX[b >>> 4]).append(HEX[b & 0xF]).append(' ');
                    ascii.append(b >= 0x20 && b < 0x7F ? (char) b : '.');
                } else {
                    sb.append("   ");
                }
            }
            sb.append(" |").append(ascii).append('|');
        }
        if (total > n) {
            sb.append(n == 0 ? "" : "\n").append("(").append(total - n).append(" more bytes)");
        }
        return sb.toString();
    }
}
