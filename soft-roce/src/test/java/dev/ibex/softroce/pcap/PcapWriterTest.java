package dev.ibex.softroce.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** File format, synthetic headers, bounded buffering and concurrent writers. */
class PcapWriterTest {
    private static final int SRC = 0x7F00_0002, DST = 0x7F00_0003;

    @TempDir
    Path dir;

    @Test
    void writesLinktypeRawWithTheSyntheticIpv4AndUdpHeaders() throws Exception {
        Path file = dir.resolve("one.pcap");
        // the RC ACK of wire.md §1.6: its IPv4/UDP headers there are exactly the synthetic ones
        byte[] ack = HexFormat.of().parseHex("1100ffff00000011000abcde1f0000013c0dcce9");
        try (PcapWriter w = PcapWriter.open(file)) {
            w.writeIpv4(SRC, 4791, DST, 4791, MemorySegment.ofArray(ack), 0, ack.length);
            assertThat(w.records()).isEqualTo(1);
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt()).isEqualTo(0xA1B2_3C4D); // nanosecond pcap
        assertThat(b.getShort()).isEqualTo((short) 2);
        assertThat(b.getShort()).isEqualTo((short) 4);
        b.getLong();
        assertThat(b.getInt()).isEqualTo(65_535);
        assertThat(b.getInt()).isEqualTo(PcapWriter.LINKTYPE_RAW);
        long seconds = Integer.toUnsignedLong(b.getInt());
        assertThat(seconds).isCloseTo(System.currentTimeMillis() / 1000, org.assertj.core.data.Offset.offset(60L));
        assertThat(b.getInt()).isBetween(0, 999_999_999);
        assertThat(b.getInt()).isEqualTo(48);
        assertThat(b.getInt()).isEqualTo(48);
        byte[] rest = new byte[b.remaining()];
        b.get(rest);
        assertThat(HexFormat.of().formatHex(rest)).isEqualTo("450000300000400040113cb87f0000027f000003"
                + "12b712b7001c0000" + "1100ffff00000011000abcde1f0000013c0dcce9");
    }

    @Test
    void boundedBufferDrainsWhenFullAndCloseFlushes() throws Exception {
        Path file = dir.resolve("bounded.pcap");
        byte[] payload = new byte[280];
        try (PcapWriter w = new PcapWriter(Files.newByteChannel(file, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE), 1024)) {
            assertThat(Files.size(file)).isEqualTo(24); // header written at once
            for (int i = 0; i < 10; i++) {
                w.writeIpv4(SRC, 1, DST, 2, MemorySegment.ofArray(payload), 0, payload.length);
            }
            long before = Files.size(file);
            assertThat(before).as("drained while writing").isGreaterThan(24).isLessThan(24 + 10 * 324);
            byte[] big = new byte[3000]; // larger than the whole buffer
            w.writeIpv4(SRC, 1, DST, 2, MemorySegment.ofArray(big), 0, big.length);
            w.flush();
            assertThat(Files.size(file)).isEqualTo(24 + 10 * (16 + 28 + 280) + 16 + 28 + 3000);
        }
        assertThat(records(file)).isEqualTo(11);
    }

    @Test
    void concurrentWritersProduceWholeRecords() throws Exception {
        Path file = dir.resolve("concurrent.pcap");
        int threads = 4, perThread = 2000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (PcapWriter w = new PcapWriter(java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE), 4096)) {
            CountDownLatch go = new CountDownLatch(1);
            Future<?>[] done = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                done[t] = pool.submit(() -> {
                    go.await();
                    byte[] p = new byte[20 + id * 4];
                    java.util.Arrays.fill(p, (byte) id);
                    for (int i = 0; i < perThread; i++) {
                        w.writeIpv4(SRC + id, 4791, DST, 4791, MemorySegment.ofArray(p), 0, p.length);
                    }
                    return null;
                });
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        b.position(24);
        int[] perId = new int[threads];
        while (b.hasRemaining()) {
            b.position(b.position() + 8);
            int len = b.getInt();
            b.getInt();
            byte[] rec = new byte[len];
            b.get(rec);
            int id = rec[15] - 2; // low byte of the source address
            assertThat(len).isEqualTo(28 + 20 + id * 4);
            for (int i = 28; i < len; i++) {
                assertThat(rec[i]).isEqualTo((byte) id);
            }
            perId[id]++;
        }
        assertThat(perId).containsOnly(perThread);
    }

    @Test
    void closedWriterRefusesRecords() throws Exception {
        PcapWriter w = PcapWriter.open(dir.resolve("closed.pcap"));
        w.close();
        w.close(); // idempotent
        w.flush(); // no-op
        assertThatThrownBy(() -> w.writeIpv4(SRC, 1, DST, 2, MemorySegment.ofArray(new byte[4]), 0, 4))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new PcapWriter(java.nio.channels.Channels.newChannel(
                new java.io.ByteArrayOutputStream()), 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ipHeaderChecksum() {
        MemorySegment s = MemorySegment.ofArray(new byte[28]);
        PcapWriter.writeIpUdp(s, 0, 0xC0A8_0001, 1, 0xC0A8_00C7, 2, 0x73 - 28);
        // RFC 1071 example header 4500 0073 0000 4000 4011 ---- c0a8 0001 c0a8 00c7 → b861
        assertThat(dev.ibex.softroce.wire.NetworkOrder.u16(s, 10)).isEqualTo(0xB861);
        assertThat(PcapWriter.ipChecksum(s, 0)).isZero(); // a correct header sums to 0xFFFF
    }

    private static int records(Path file) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        b.position(24);
        int n = 0;
        while (b.hasRemaining()) {
            b.position(b.position() + 8);
            int len = b.getInt();
            b.position(b.position() + 4 + len);
            n++;
        }
        return n;
    }
}
