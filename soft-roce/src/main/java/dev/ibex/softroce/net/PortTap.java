package dev.ibex.softroce.net;

import dev.ibex.softroce.pcap.PcapWriter;
import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A port's pcap tap: the writer (if any) every datagram sent and received is copied to, detached when it fails.
 *
 * <p>Threading: any thread may set, read and record; the writer is one volatile reference.
 */
final class PortTap {
    /** The port's logger, so the tap's lines keep the category they always had. */
    private static final Logger LOG = LoggerFactory.getLogger(SoftPort.class);

    private final String name;
    private volatile PcapWriter writer;

    PortTap(PcapWriter writer, String name) {
        this.writer = writer;
        this.name = name;
    }

    /** The writer now, or {@code null}; read once per datagram and passed to {@link #record}. */
    PcapWriter writer() {
        return writer;
    }

    void set(PcapWriter w) {
        this.writer = w;
    }

    /** Copies one datagram to {@code t}; a writer that fails is logged and detached (unless replaced meanwhile). */
    void record(PcapWriter t, int srcIp, int srcPort, int dstIp, int dstPort, MemorySegment data, int length) {
        try {
            t.writeIpv4(srcIp, srcPort, dstIp, dstPort, data, 0, length);
        } catch (RuntimeException e) {
            if (writer == t) {
                writer = null;
                LOG.warn("port {}: pcap tap failed and was detached", name, e);
            }
        }
    }
}
