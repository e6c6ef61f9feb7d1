package dev.ibex.softroce.pcap;

import dev.ibex.softroce.wire.NetworkOrder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes RoCEv2 datagrams to a pcap file (nanosecond timestamps, LINKTYPE_RAW). Each record is a
 * synthetic IPv4 header (identification 0, DF, TTL 64, a correct header checksum), a UDP header
 * (checksum 0, which IPv4 allows) and the UDP payload as sent or received. tshark decodes port 4791 as
 * RoCEv2 by default; other ports need {@code -o infiniband.rroce.port:N}.
 *
 * <p>Thread-safe: records from several I/O threads are appended under a lock into a bounded buffer that is
 * written to the channel whenever it fills, on {@link #flush()} and on {@link #close()}. Writing after close
 * throws {@link IllegalStateException}; I/O failures surface as {@link UncheckedIOException}.
 */
public final class PcapWriter implements AutoCloseable {
    /** pcap link type for packets that start with an IP header. */
    public static final int LINKTYPE_RAW = 101;
    /** Default buffer size. */
    public static final int DEFAULT_BUFFER = 256 * 1024;

    private static final int MAGIC_NANOS = 0xA1B2_3C4D;
    private static final int SNAPLEN = 65_535;
    private static final int RECORD_HEADER = 16;
    private static final int IP_UDP = 28;

    private final ReentrantLock lock = new ReentrantLock();
    private final WritableByteChannel channel;
    private final ByteBuffer buffer;
    private final MemorySegment bufferSegment;
    private final long epochNanosAtStart;
    private final long nanoTimeAtStart;
    private long records;
    private boolean closed;

    /**
     * Writes to {@code channel} (which this writer closes) through a buffer of {@code bufferBytes}.
     * The file header is written at once.
     */
    public PcapWriter(WritableByteChannel channel, int bufferBytes) throws IOException {
        this.channel = Objects.requireNonNull(channel, "channel");
        if (bufferBytes < 1024) {
            throw new IllegalArgumentException("buffer of " + bufferBytes + " bytes is below 1024");
        }
        this.buffer = ByteBuffer.allocateDirect(bufferBytes).order(ByteOrder.LITTLE_ENDIAN);
        this.bufferSegment = MemorySegment.ofBuffer(buffer);
        this.epochNanosAtStart = System.currentTimeMillis() * 1_000_000L;
        this.nanoTimeAtStart = System.nanoTime();
        buffer.putInt(MAGIC_NANOS).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                .putInt(SNAPLEN).putInt(LINKTYPE_RAW);
        drain();
    }

    /** Creates (or truncates) {@code file} and writes to it. */
    public static PcapWriter open(Path file) throws IOException {
        return new PcapWriter(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING), DEFAULT_BUFFER);
    }

    /**
     * Appends one datagram from {@code srcIp:srcPort} to {@code dstIp:dstPort} (IPv4 addresses as ints, see
     * {@link dev.ibex.softroce.wire.Ipv4}) whose UDP payload is {@code [offset, offset + length)} of
     * {@code payload}, timestamped now.
     */
    public void writeIpv4(int srcIp, int srcPort, int dstIp, int dstPort, MemorySegment payload, long offset,
            int length) {
        if (length < 0 || length > SNAPLEN - IP_UDP) {
            throw new IllegalArgumentException("UDP payload of " + length + " bytes does not fit an IPv4 datagram");
        }
        long now = epochNanosAtStart + (System.nanoTime() - nanoTimeAtStart);
        int recordLength = RECORD_HEADER + IP_UDP + length;
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("pcap writer is closed");
            }
            if (buffer.remaining() < recordLength) {
                drain();
            }
            if (buffer.remaining() < recordLength) { // larger than the whole buffer: write it on its own
                writeLarge(now, srcIp, srcPort, dstIp, dstPort, payload, offset, length);
            } else {
                append(now, srcIp, srcPort, dstIp, dstPort, payload, offset, length);
            }
            records++;
        } catch (IOException e) {
            throw new UncheckedIOException("writing the pcap file failed", e);
        } finally {
            lock.unlock();
        }
    }

    /** Number of records written so far. */
    public long records() {
        lock.lock();
        try {
            return records;
        } finally {
            lock.unlock();
        }
    }

    /** Writes buffered records to the channel. */
    public void flush() {
        lock.lock();
        try {
            if (!closed) {
                drain();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing the pcap file failed", e);
        } finally {
            lock.unlock();
        }
    }

    /** Flushes and closes the channel. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                drain();
            } finally {
                channel.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("closing the pcap file failed", e);
        } finally {
            lock.unlock();
        }
    }

    private void append(long now, int srcIp, int srcPort, int dstIp, int dstPort, MemorySegment payload,
            long offset, int length) {
        int ipLength = IP_UDP + length;
        buffer.putInt((int) (now / 1_000_000_000L)).putInt((int) (now % 1_000_000_000L))
                .putInt(ipLength).putInt(ipLength);
        int at = buffer.position();
        writeIpUdp(bufferSegment, at, srcIp, srcPort, dstIp, dstPort, length);
        MemorySegment.copy(payload, offset, bufferSegment, at + IP_UDP, length);
        buffer.position(at + ipLength);
    }

    private void writeLarge(long now, int srcIp, int srcPort, int dstIp, int dstPort, MemorySegment payload,
            long offset, int length) throws IOException {
        byte[] record = new byte[RECORD_HEADER + IP_UDP + length]; // rare: only records larger than the buffer
        ByteBuffer one = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
        one.putInt((int) (now / 1_000_000_000L)).putInt((int) (now % 1_000_000_000L))
                .putInt(IP_UDP + length).putInt(IP_UDP + length);
        MemorySegment seg = MemorySegment.ofArray(record);
        writeIpUdp(seg, RECORD_HEADER, srcIp, srcPort, dstIp, dstPort, length);
        MemorySegment.copy(payload, offset, seg, RECORD_HEADER + IP_UDP, length);
        one.clear();
        while (one.hasRemaining()) {
            channel.write(one);
        }
    }

    /** IPv4 (ID 0, DF, TTL 64, checksum) + UDP (checksum 0) headers at {@code at}. */
    static void writeIpUdp(MemorySegment s, long at, int srcIp, int srcPort, int dstIp, int dstPort, int length) {
        NetworkOrder.u8(s, at, 0x45);
        NetworkOrder.u8(s, at + 1, 0);
        NetworkOrder.u16(s, at + 2, IP_UDP + length);
        NetworkOrder.u16(s, at + 4, 0);
        NetworkOrder.u16(s, at + 6, 0x4000);
        NetworkOrder.u8(s, at + 8, 64);
        NetworkOrder.u8(s, at + 9, 17);
        NetworkOrder.u16(s, at + 10, 0);
        NetworkOrder.u32(s, at + 12, srcIp);
        NetworkOrder.u32(s, at + 16, dstIp);
        NetworkOrder.u16(s, at + 10, ipChecksum(s, at));
        NetworkOrder.u16(s, at + 20, srcPort);
        NetworkOrder.u16(s, at + 22, dstPort);
        NetworkOrder.u16(s, at + 24, 8 + length);
        NetworkOrder.u16(s, at + 26, 0);
    }

    /** RFC 1071 checksum of the 20-byte IPv4 header at {@code at}. */
    static int ipChecksum(MemorySegment s, long at) {
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += NetworkOrder.u16(s, at + i);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    private void drain() throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        buffer.clear();
    }
}
