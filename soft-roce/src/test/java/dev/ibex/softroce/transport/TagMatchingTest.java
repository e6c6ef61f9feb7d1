package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.RendezvousHeader;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SrqOpsBatch;
import dev.ibex.cm.spi.TagMatchingHeader;
import dev.ibex.cm.spi.TagMatchingSrq;
import dev.ibex.cm.spi.TmCaps;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The soft device's tag-matching SRQ: eager matching, unexpected messages, phase sync, TAG_DEL, rendezvous. */
class TagMatchingTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final long ALL = -1L;

    /** One polled completion, copied. */
    record Wc(long wrId, WcStatus status, int opcode, int byteLen, int flags, long tag, int priv) {}

    /** A sender, a receiver on a TM-SRQ, and the SRQ's CQ. */
    private static final class Rig {
        final Harness h;
        final TagMatchingSrq srq;
        final CompletionQueue cq;
        final Side tx;
        final Side rx;
        final SrqOpsBatch ops;
        final RecvBatch recv;
        final SendBatch send;
        final CompletionBatch one;

        Rig(Harness h, int maxNumTags, Mtu mtu) {
            this.h = h;
            ProtectionDomain pd = h.b.allocPd();
            cq = h.b.createCompletionQueue(256, null, 0);
            srq = pd.createTagMatchingSrq(cq, 16, 1, maxNumTags, 8);
            tx = h.side(h.a, 16384);
            rx = h.side(h.b, 16384, new QpCap(16, 0, 1, 0, 0), true, srq, pd);
            Harness.Params p = new Harness.Params();
            p.mtu = mtu;
            Harness.connect(tx, rx, p);
            ops = SrqOpsBatch.allocate(h.arena, 8, 2);
            recv = RecvBatch.allocate(h.arena, 1, 1);
            send = SendBatch.allocate(h.arena, 1, 1);
            one = CompletionBatch.allocate(h.arena, 1);
        }

        /** Receiver buffer slot {@code k} (1 KiB each from 4 KiB on; the sender's message is at 0). */
        long slot(int k) {
            return rx.mr.address() + 4096 + 1024L * k;
        }

        MemorySegment slotBytes(int k, int n) {
            return rx.buf.asSlice(4096 + 1024L * k, n);
        }

        void postOrdinary(long wrId, int k) {
            recv.clear(0).wrId(0, wrId).single(0, slot(k), 1024, rx.mr.lkey());
            srq.postRecv(recv, 1);
        }

        int add(long recvWrId, long tag, long mask, int k, int flags) {
            ops.clear(0).tagAdd(0, 1000 + recvWrId, flags, recvWrId, tag, mask).single(0, slot(k), 1024, rx.mr.lkey());
            srq.postSrqOps(ops, 1);
            return ops.handle(0);
        }

        /** Sends {@code TMH(op, ctx, tag) | payload} where payload is {@code n} bytes of {@code fill}. */
        void send(int op, int ctx, long tag, int n, byte fill) {
            TagMatchingHeader.write(tx.buf, 0, op, ctx, tag);
            tx.buf.asSlice(16, n).fill(fill);
            sendRaw(16 + n);
        }

        void sendRaw(int len) {
            send.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, tx.mr.address(), len, tx.mr.lkey());
            tx.qp.postSend(send, 1);
            assertThat(Harness.pollAtLeast(tx.scq, tx.wc, 1, WAIT)).isEqualTo(1);
            assertThat(tx.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        }

        Wc next() {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                if (cq.poll(one) == 1) {
                    return new Wc(one.wrId(0), one.status(0), one.opcode(0), one.byteLen(0), one.flags(0),
                            one.opcode(0) == WcOpcode.TM_RECV ? one.tmTag(0) : 0,
                            one.opcode(0) == WcOpcode.TM_RECV ? one.tmPriv(0) : 0);
                }
                Thread.yield();
            }
            throw new AssertionError("no completion on the TM-SRQ's CQ; " + Harness.describe(rx.qp));
        }

        void assertQuiet() {
            assertThat(cq.poll(one)).as("no further completion").isZero();
        }
    }

    @Test
    void softDeviceReportsTmCaps() {
        try (Harness h = new Harness()) {
            TmCaps caps = h.b.queryTmCaps();
            assertThat(caps.supported()).isTrue();
            assertThat(caps.maxNumTags()).isEqualTo(4096);
            assertThat(caps.flags() & TmCaps.CAP_RC).isEqualTo(TmCaps.CAP_RC);
            assertThat(caps.maxRndvHdrSize()).isGreaterThanOrEqualTo(TagMatchingHeader.SIZE + RendezvousHeader.SIZE);
        }
    }

    @Test
    void eagerMessageMatchesFirstPostedTagAndLandsWithoutHeader() {
        try (Harness h = new Harness()) {
            Rig r = new Rig(h, 16, Mtu.MTU_1024);
            r.add(1, 0x10, ALL, 1, 0);
            r.add(2, 0x10, ALL, 2, 0);
            r.add(3, 0x100, 0xF00, 3, SrqOpsBatch.SIGNALED);
            Wc added = r.next();
            assertThat(added.opcode()).isEqualTo(WcOpcode.TM_ADD);
            assertThat(added.wrId()).isEqualTo(1003);
            assertThat(added.flags() & WcFlags.TM_SYNC_REQ).isZero();

            r.send(TagMatchingHeader.EAGER, 0xC0FFEE, 0x10, 100, (byte) 7);
            Wc m = r.next();
            assertThat(m.opcode()).isEqualTo(WcOpcode.TM_RECV);
            assertThat(m.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(m.wrId()).as("first posted of two equal tags").isEqualTo(1);
            assertThat(m.byteLen()).isEqualTo(100);
            assertThat(m.flags()).isEqualTo(WcFlags.TM_MATCH | WcFlags.TM_DATA_VALID);
            assertThat(m.tag()).isEqualTo(0x10);
            assertThat(m.priv()).isEqualTo(0xC0FFEE);
            assertThat(r.slotBytes(1, 100).toArray(ValueLayout.JAVA_BYTE)).containsOnly(7);
            assertThat(r.slotBytes(1, 101).get(ValueLayout.JAVA_BYTE, 100)).as("nothing past the payload").isZero();

            r.send(TagMatchingHeader.EAGER, 2, 0x1AB, 5, (byte) 9); // 0x1AB & 0xF00 == 0x100
            Wc masked = r.next();
            assertThat(masked.wrId()).isEqualTo(3);
            assertThat(masked.tag()).isEqualTo(0x1AB);

            r.send(TagMatchingHeader.EAGER, 3, 0x10, 4, (byte) 5);
            assertThat(r.next().wrId()).isEqualTo(2);
            r.assertQuiet();
        }
    }

    @Test
    void unexpectedMessageLandsWholeAndTagsAddedBeforeSyncStayUnmatched() {
        try (Harness h = new Harness()) {
            Rig r = new Rig(h, 16, Mtu.MTU_1024);
            r.postOrdinary(50, 0);
            r.send(TagMatchingHeader.EAGER, 7, 5, 8, (byte) 1);
            Wc u = r.next();
            assertThat(u.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(u.wrId()).isEqualTo(50);
            assertThat(u.byteLen()).as("the TMH stays in an unexpected message").isEqualTo(24);
            assertThat(u.flags() & WcFlags.TM_SYNC_REQ).isEqualTo(WcFlags.TM_SYNC_REQ);
            TagMatchingHeader hdr = new TagMatchingHeader().wrap(r.slotBytes(0, 24), 0, 24);
            assertThat(hdr.tag()).isEqualTo(5);
            assertThat(hdr.appCtx()).isEqualTo(7);

            // software has not yet reported the unexpected message: the new tag waits for the sync
            r.add(1, 5, ALL, 1, SrqOpsBatch.SIGNALED);
            Wc added = r.next();
            assertThat(added.opcode()).isEqualTo(WcOpcode.TM_ADD);
            assertThat(added.flags() & WcFlags.TM_SYNC_REQ).isEqualTo(WcFlags.TM_SYNC_REQ);
            r.postOrdinary(51, 2);
            r.send(TagMatchingHeader.EAGER, 8, 5, 8, (byte) 2);
            Wc u2 = r.next();
            assertThat(u2.opcode()).as("an unarmed tag does not match").isEqualTo(WcOpcode.RECV);
            assertThat(u2.wrId()).isEqualTo(51);

            r.ops.clear(0).tagSync(0, 77, SrqOpsBatch.SIGNALED, 2);
            r.srq.postSrqOps(r.ops, 1);
            Wc synced = r.next();
            assertThat(synced.opcode()).isEqualTo(WcOpcode.TM_SYNC);
            assertThat(synced.wrId()).isEqualTo(77);
            assertThat(synced.flags() & WcFlags.TM_SYNC_REQ).isZero();

            r.send(TagMatchingHeader.EAGER, 9, 5, 8, (byte) 3);
            Wc m = r.next();
            assertThat(m.opcode()).as("armed by the sync").isEqualTo(WcOpcode.TM_RECV);
            assertThat(m.wrId()).isEqualTo(1);
            assertThat(m.priv()).isEqualTo(9);
            r.assertQuiet();
        }
    }

    @Test
    void untaggedMessagesGoToOrdinaryReceivesAndAreNotCounted() {
        try (Harness h = new Harness()) {
            Rig r = new Rig(h, 16, Mtu.MTU_1024);
            r.add(1, 0, 0, 1, 0); // matches every tag
            r.postOrdinary(60, 0);
            r.send(TagMatchingHeader.NO_TAG, 0, 0, 4, (byte) 4);
            Wc n = r.next();
            assertThat(n.opcode()).isEqualTo(WcOpcode.TM_NO_TAG);
            assertThat(n.wrId()).isEqualTo(60);
            assertThat(n.byteLen()).isEqualTo(20);
            assertThat(n.flags() & WcFlags.TM_SYNC_REQ).isZero();
            r.postOrdinary(61, 2);
            r.tx.buf.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x42); // not a TMH at all
            r.sendRaw(10);
            assertThat(r.next().opcode()).isEqualTo(WcOpcode.TM_NO_TAG);
            r.send(TagMatchingHeader.EAGER, 1, 0xABC, 4, (byte) 4);
            assertThat(r.next().opcode()).as("still in sync: the wildcard tag matches").isEqualTo(WcOpcode.TM_RECV);
        }
    }

    @Test
    void tagDelRemovesABufferAndFailsWithTmErrOnceAMessageConsumedIt() {
        try (Harness h = new Harness()) {
            Rig r = new Rig(h, 16, Mtu.MTU_1024);
            int a = r.add(1, 0x33, ALL, 1, 0);
            r.ops.clear(0).tagDel(0, 90, SrqOpsBatch.SIGNALED, a);
            r.srq.postSrqOps(r.ops, 1);
            Wc del = r.next();
            assertThat(del.opcode()).isEqualTo(WcOpcode.TM_DEL);
            assertThat(del.status()).isEqualTo(WcStatus.SUCCESS);

            int b = r.add(2, 0x44, ALL, 2, 0);
            r.send(TagMatchingHeader.EAGER, 0, 0x44, 4, (byte) 1);
            assertThat(r.next().wrId()).isEqualTo(2);
            r.ops.clear(0).tagDel(0, 91, 0, b); // not signaled: the failure completes anyway
            r.srq.postSrqOps(r.ops, 1);
            Wc failed = r.next();
            assertThat(failed.status()).isEqualTo(WcStatus.TM_ERR);
            assertThat(failed.wrId()).isEqualTo(91);
            r.ops.clear(0).tagDel(0, 92, 0, a); // removed before: stale too
            r.srq.postSrqOps(r.ops, 1);
            assertThat(r.next().status()).isEqualTo(WcStatus.TM_ERR);

            // the removed tag is gone: its message is unexpected
            r.postOrdinary(70, 0);
            r.send(TagMatchingHeader.EAGER, 0, 0x33, 4, (byte) 1);
            assertThat(r.next().opcode()).isEqualTo(WcOpcode.RECV);
        }
    }

    @Test
    void listOperationsAreRefusedWithTypedErrorsAndChangeNothing() {
        try (Harness h = new Harness()) {
            Rig r = new Rig(h, 2, Mtu.MTU_1024);
            r.add(1, 1, ALL, 1, 0);
            r.add(2, 2, ALL, 2, 0);
            assertThatThrownBy(() -> r.add(3, 3, ALL, 3, 0)).isInstanceOfSatisfying(PostException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
            r.ops.clear(0).tagSync(0, 0, 0, 1);
            assertThatThrownBy(() -> r.srq.postSrqOps(r.ops, 1)).isInstanceOfSatisfying(PostException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL)).hasMessageContaining("delivered 0");
            r.ops.clear(0).tagDel(0, 0, 0, 0x7FFF_FFFF);
            assertThatThrownBy(() -> r.srq.postSrqOps(r.ops, 1)).isInstanceOf(PostException.class)
                    .hasMessageContaining("never given out");
            r.ops.clear(0).tagAdd(0, 0, 0, 0, 0, 0).numSge(0, 5);
            assertThatThrownBy(() -> r.srq.postSrqOps(r.ops, 1)).isInstanceOf(PostException.class)
                    .hasMessageContaining("scatter entries");
            r.ops.clear(0).tagSync(0, 0, 0, 0);
            r.ops.segment().set(ValueLayout.JAVA_INT, 16, 9); // opcode 9
            assertThatThrownBy(() -> r.srq.postSrqOps(r.ops, 1)).isInstanceOf(PostException.class)
                    .hasMessageContaining("unknown opcode 9");
            SrqOpsBatch many = SrqOpsBatch.allocate(h.arena, 9, 1);
            assertThatThrownBy(() -> r.srq.postSrqOps(many, 9)).isInstanceOfSatisfying(PostException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
            r.assertQuiet();
            // both tags are still listed and match
            r.send(TagMatchingHeader.EAGER, 0, 2, 4, (byte) 1);
            assertThat(r.next().wrId()).isEqualTo(2);
        }
    }

    @Test
    void multiPacketEagerReportsTheMatchThenTheData() {
        try (Harness h = new Harness()) {
            Rig r = new Rig(h, 16, Mtu.MTU_1024);
            r.add(1, 8, ALL, 0, 0);
            r.ops.clear(0).tagAdd(0, 0, 0, 2, 9, ALL).single(0, r.slot(4), 4096, r.rx.mr.lkey());
            r.srq.postSrqOps(r.ops, 1);
            r.send(TagMatchingHeader.EAGER, 4, 9, 3000, (byte) 6);
            Wc match = r.next();
            assertThat(match.opcode()).isEqualTo(WcOpcode.TM_RECV);
            assertThat(match.flags()).isEqualTo(WcFlags.TM_MATCH);
            assertThat(match.wrId()).isEqualTo(2);
            assertThat(match.tag()).isEqualTo(9);
            Wc data = r.next();
            assertThat(data.flags()).isEqualTo(WcFlags.TM_DATA_VALID);
            assertThat(data.wrId()).isEqualTo(2);
            assertThat(data.byteLen()).isEqualTo(3000);
            assertThat(r.slotBytes(4, 3000).toArray(ValueLayout.JAVA_BYTE)).containsOnly(6);
        }
    }

    @Test
    void matchedRendezvousHandsTheHeadersToSoftware() {
        try (Harness h = new Harness()) {
            Rig r = new Rig(h, 16, Mtu.MTU_1024);
            r.add(1, 0x77, ALL, 1, 0);
            TagMatchingHeader.write(r.tx.buf, 0, TagMatchingHeader.RNDV, 5, 0x77);
            RendezvousHeader.write(r.tx.buf, 16, r.tx.mr.address() + 8192, r.tx.mr.rkey(), 2048);
            r.sendRaw(32);
            Wc w = r.next();
            assertThat(w.status()).isEqualTo(WcStatus.TM_RNDV_INCOMPLETE);
            assertThat(w.opcode()).isEqualTo(WcOpcode.TM_RECV);
            assertThat(w.wrId()).isEqualTo(1);
            assertThat(w.tag()).isEqualTo(0x77);
            assertThat(w.byteLen()).isEqualTo(32);
            RendezvousHeader rvh = new RendezvousHeader().wrap(r.slotBytes(1, 32), 16, 16);
            assertThat(rvh.rkey()).isEqualTo(r.tx.mr.rkey());
            assertThat(rvh.length()).isEqualTo(2048);
            // the QP keeps working
            r.add(2, 0x78, ALL, 2, 0);
            r.send(TagMatchingHeader.EAGER, 0, 0x78, 4, (byte) 1);
            assertThat(r.next().wrId()).isEqualTo(2);
        }
    }

    @Test
    void creationChecksSizesAndTransport() {
        try (Harness h = new Harness()) {
            ProtectionDomain pd = h.b.allocPd();
            CompletionQueue cq = h.b.createCompletionQueue(16, null, 0);
            assertThatThrownBy(() -> pd.createTagMatchingSrq(cq, 16, 1, 4097, 8)).isInstanceOfSatisfying(
                    RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            CompletionQueue other = h.a.createCompletionQueue(16, null, 0);
            assertThatThrownBy(() -> pd.createTagMatchingSrq(other, 16, 1, 16, 8)).isInstanceOf(RdmaException.class);
            TagMatchingSrq srq = pd.createTagMatchingSrq(cq, 16, 1, 16, 8);
            assertThatThrownBy(() -> pd.createQueuePair(new QpInitAttr(cq, cq, srq, new QpCap(4, 0, 1, 1, 0),
                    QpType.UD, true, null))).isInstanceOf(RdmaException.class).hasMessageContaining("RC QPs only");
            assertThatThrownBy(cq::close).isInstanceOfSatisfying(RdmaException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY)).hasMessageContaining("tag-matching SRQ");
            srq.close();
            srq.close(); // idempotent: the CQ is released once
            assertThatThrownBy(() -> srq.postSrqOps(SrqOpsBatch.allocate(h.arena, 1, 1), 1))
                    .isInstanceOf(IllegalStateException.class);
            cq.close();
            assertThatThrownBy(() -> pd.createTagMatchingSrq(cq, 16, 1, 16, 8)).isInstanceOf(IllegalStateException.class);
        }
    }
}
