package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How {@link SegmentBatch} cuts a requester's packets into runs for one segmented send each. */
class SegmentBatchTest {
    /** A link that records each call: a run's datagram count, segment size and bytes, or a single send. */
    static final class RecordingLink implements Link {
        record Call(boolean segmented, int segmentSize, int bytes, int dstIp) {
        }

        final List<Call> calls = new ArrayList<>();

        @Override
        public int address() {
            return 0x7f000002;
        }

        @Override
        public int port() {
            return 4791;
        }

        @Override
        public void send(ByteBuffer datagram, int dstIp, InetSocketAddress destination) {
            calls.add(new Call(false, datagram.remaining(), datagram.remaining(), dstIp));
        }

        @Override
        public void sendSegments(ByteBuffer datagrams, int segmentSize, int dstIp, InetSocketAddress destination) {
            calls.add(new Call(true, segmentSize, datagrams.remaining(), dstIp));
        }

        @Override
        public void joinMulticast(int group) {
        }

        @Override
        public void leaveMulticast(int group) {
        }

        @Override
        public int netdevMtu() {
            return 65536;
        }

        @Override
        public void close() {
        }
    }

    private final RecordingLink link = new RecordingLink();
    private final InetSocketAddress toB = new InetSocketAddress("127.0.0.3", 4791);
    private final InetSocketAddress toC = new InetSocketAddress("127.0.0.4", 4791);
    private SegmentBatch batch;

    @BeforeEach
    void take() {
        batch = SegmentBatch.take();
    }

    @AfterEach
    void release() {
        if (batch != null) {
            batch.release();
        }
    }

    private void add(InetSocketAddress to, int length) {
        add(to, length, true);
    }

    private void add(InetSocketAddress to, int length, boolean last) {
        long at = batch.offsetFor(link, to == toB ? 3 : 4, to, length, last);
        assertThat(at + length).isLessThanOrEqualTo(batch.segment().byteSize());
        batch.added(length);
    }

    @Test
    void a64KiBWriteLeavesAsItsFirstPacketAndOneRunOfTheRest() {
        add(toB, 4128, false); // WRITE FIRST: BTH + RETH + 4096 + ICRC
        for (int i = 0; i < 15; i++) {
            add(toB, 4112, i == 14); // MIDDLE, then LAST
        }
        batch.flush();
        assertThat(link.calls).containsExactly(new RecordingLink.Call(false, 4128, 4128, 3),
                new RecordingLink.Call(true, 4112, 15 * 4112, 3));
    }

    @Test
    void aShorterPacketEndsARunAndTheNextStartsAnother() {
        for (int i = 0; i < 3; i++) {
            add(toB, 80);
        }
        add(toB, 40); // a last packet with less payload: joins as the run's short tail
        add(toB, 80);
        batch.flush();
        assertThat(link.calls).containsExactly(new RecordingLink.Call(true, 80, 280, 3),
                new RecordingLink.Call(false, 80, 80, 3));
    }

    @Test
    void anotherDestinationOrALongerPacketSendsTheRunFirst() {
        add(toB, 80);
        add(toB, 80);
        add(toC, 80);
        add(toC, 120);
        batch.flush();
        assertThat(link.calls).containsExactly(new RecordingLink.Call(true, 80, 160, 3),
                new RecordingLink.Call(false, 80, 80, 4), new RecordingLink.Call(false, 120, 120, 4));
    }

    @Test
    void aRunHoldsAtMost64DatagramsAndSixtyFiveThousandBytes() {
        for (int i = 0; i < 65; i++) {
            add(toB, 80);
        }
        for (int i = 0; i < 16; i++) {
            add(toC, 4112);
        }
        batch.flush();
        assertThat(link.calls).containsExactly(new RecordingLink.Call(true, 80, 64 * 80, 3),
                new RecordingLink.Call(false, 80, 80, 3), new RecordingLink.Call(true, 4112, 15 * 4112, 4),
                new RecordingLink.Call(false, 4112, 4112, 4));
    }

    @Test
    void aShorterPacketThatEndsItsMessageJoinsASinglePacket() {
        add(toB, 80); // a reply
        add(toB, 20); // the ACK of the request it answers
        add(toB, 4128, false);
        add(toB, 4112, true); // a two-packet WRITE
        batch.flush();
        assertThat(link.calls).containsExactly(new RecordingLink.Call(true, 80, 100, 3),
                new RecordingLink.Call(true, 4128, 8240, 3));
    }

    @Test
    void aThreadsBatchIsTakenOnceAndReleasingSendsWhatItHolds() {
        assertThat(SegmentBatch.take()).as("taken already: a nested run sends packet by packet").isNull();
        add(toB, 80);
        add(toB, 80);
        batch.release();
        assertThat(link.calls).containsExactly(new RecordingLink.Call(true, 80, 160, 3));
        batch = SegmentBatch.take();
        assertThat(batch).isNotNull();
        assertThat(batch.pending()).isZero();
    }
}
