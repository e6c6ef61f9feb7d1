package dev.ibex.softroce.net;

import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Soft ports on 127.0.0.x that record what they receive (test fixture). */
final class PortFixture implements AutoCloseable {
    /** What a handler saw: a copy of the datagram and its addressing, and the delivering thread. */
    record Received(byte[] data, int srcIp, int srcPort, int dstIp, int dstPort, String thread) {
        int tag() {
            return data.length == 0 ? -1 : data[0] & 0xFF;
        }
    }

    final List<SoftPort> ports = new ArrayList<>();

    SoftPort open(String ip, int udpPort, LinkedBlockingQueue<Received> sink) throws IOException {
        return open(SoftPort.builder(InetAddress.getByName(ip)).udpPort(udpPort), sink);
    }

    SoftPort open(PortBuilder builder, LinkedBlockingQueue<Received> sink) throws IOException {
        SoftPort p = builder.handler(d -> sink.add(new Received(
                d.segment().asSlice(0, d.length()).toArray(ValueLayout.JAVA_BYTE), d.srcIp(), d.srcPort(), d.dstIp(),
                d.dstPort(), Thread.currentThread().getName()))).open();
        ports.add(p);
        return p;
    }

    static ByteBuffer datagram(int tag, int length) {
        ByteBuffer b = ByteBuffer.allocateDirect(length);
        for (int i = 0; i < length; i++) {
            b.put(i, (byte) (i == 0 ? tag : i));
        }
        return b;
    }

    static int ip(String dotted) throws IOException {
        return Ipv4.toInt(InetAddress.getByName(dotted));
    }

    static Received next(LinkedBlockingQueue<Received> q) throws InterruptedException {
        Received r = q.poll(5, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError("no datagram within 5 s");
        }
        return r;
    }

    /** Tags received until the marker tag arrives (the marker excluded). */
    static List<Integer> tagsUntil(LinkedBlockingQueue<Received> q, int marker) throws InterruptedException {
        List<Integer> tags = new ArrayList<>();
        for (Received r = next(q); r.tag() != marker; r = next(q)) {
            tags.add(r.tag());
        }
        return tags;
    }

    @Override
    public void close() {
        ports.forEach(SoftPort::close);
    }
}
