package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The {@code ibv_wr_*} batch API ({@link WrBatch}) end to end between two soft devices. */
class WrBatchTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration QUIET = Duration.ofMillis(300);
    private Harness h;
    private Side x;
    private Side y;
    private RecvBatch rb;

    @BeforeEach
    void connect() {
        h = new Harness();
        x = h.side(h.a, 1 << 16, new QpCap(4, 16, 2, 2, 64), true, null, null);
        y = h.side(h.b, 1 << 16, new QpCap(4, 16, 2, 2, 64), true, null, null);
        Harness.connect(x, y, new Harness.Params());
        rb = RecvBatch.allocate(h.arena, 8, 1);
    }

    @AfterEach
    void close() {
        h.close();
    }

    private void recv(int n) {
        for (int i = 0; i < n; i++) {
            rb.clear(i).wrId(i, 100 + i).single(i, y.mr.address() + 8192 + 1024L * i, 1024, y.mr.lkey());
        }
        y.qp.postRecv(rb, n);
    }

    private static void assertQuiet(CompletionQueue cq, Side s) {
        assertThat(Harness.pollAtLeast(cq, s.wc, 1, QUIET)).as("no completion").isZero();
    }

    @Test
    void aBatchOfSendWriteReadAndAtomicsCompletesInOrderWithTheRightData() {
        recv(1);
        x.buf.set(ValueLayout.JAVA_LONG, 0, 0x1111_2222_3333_4444L);
        x.buf.set(ValueLayout.JAVA_LONG, 8, 0x5555_6666_7777_8888L);
        y.buf.set(ValueLayout.JAVA_LONG, 512, 0xABCD_EF01_2345_6789L);
        y.buf.set(ValueLayout.JAVA_LONG, 1024, 40);
        y.buf.set(ValueLayout.JAVA_LONG, 1032, 7);
        long yb = y.mr.address();
        int rkey = y.mr.rkey();
        int lkey = x.mr.lkey();
        long xb = x.mr.address();

        x.qp.startWr().wrId(1).sendImm(0x0BADCAFE).setSge(lkey, xb, 8)
                .wrId(2).rdmaWrite(rkey, yb + 256).setSge(lkey, xb + 8, 8)
                .wrId(3).rdmaRead(rkey, yb + 512).setSge(lkey, xb + 64, 8)
                .complete();
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 3, WAIT)).as(Harness.describe(x.qp)).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(x.wc.status(i)).isEqualTo(WcStatus.SUCCESS);
            assertThat(x.wc.wrId(i)).isEqualTo(i + 1);
        }
        assertThat(x.wc.opcode(0)).isEqualTo(WcOpcode.SEND);
        assertThat(x.wc.opcode(1)).isEqualTo(WcOpcode.RDMA_WRITE);
        assertThat(x.wc.opcode(2)).isEqualTo(WcOpcode.RDMA_READ);
        x.qp.startWr().wrId(4).atomicCmpSwp(rkey, yb + 1024, 40, 41).setSge(lkey, xb + 128, 8)
                .wrId(5).atomicFetchAdd(rkey, yb + 1032, 5).setSge(lkey, xb + 136, 8)
                .complete();
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 2, WAIT)).as(Harness.describe(x.qp)).isEqualTo(2);
        assertThat(x.wc.wrId(0)).isEqualTo(4);
        assertThat(x.wc.opcode(0)).isEqualTo(WcOpcode.COMP_SWAP);
        assertThat(x.wc.wrId(1)).isEqualTo(5);
        assertThat(x.wc.opcode(1)).isEqualTo(WcOpcode.FETCH_ADD);
        assertThat(x.wc.status(1)).isEqualTo(WcStatus.SUCCESS);

        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, WAIT)).isEqualTo(1);
        assertThat(y.wc.wrId(0)).isEqualTo(100);
        assertThat(y.wc.flags(0) & WcFlags.WITH_IMM).isNotZero();
        assertThat(y.wc.immData(0)).isEqualTo(0x0BADCAFE);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 8192)).isEqualTo(0x1111_2222_3333_4444L);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 256)).isEqualTo(0x5555_6666_7777_8888L);
        assertThat(x.buf.get(ValueLayout.JAVA_LONG, 64)).isEqualTo(0xABCD_EF01_2345_6789L);
        assertThat(x.buf.get(ValueLayout.JAVA_LONG, 128)).as("CAS returns the original").isEqualTo(40);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 1024)).isEqualTo(41);
        assertThat(x.buf.get(ValueLayout.JAVA_LONG, 136)).as("FAA returns the original").isEqualTo(7);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 1032)).isEqualTo(12);
    }

    @Test
    void inlineDataIsCarriedByTheWr() {
        x.buf.set(ValueLayout.JAVA_LONG, 0, 0x0102_0304_0506_0708L);
        x.qp.startWr().wrId(7).rdmaWrite(y.mr.rkey(), y.mr.address()).setInlineData(x.mr.address(), 8).complete();
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, WAIT)).isEqualTo(1);
        assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x0102_0304_0506_0708L);
    }

    @Test
    void abortPostsNothingAndThePeerSeesNothing() {
        recv(1);
        x.buf.set(ValueLayout.JAVA_LONG, 0, 42);
        x.qp.startWr().wrId(1).send().setSge(x.mr.lkey(), x.mr.address(), 8)
                .wrId(2).rdmaWrite(y.mr.rkey(), y.mr.address()).setSge(x.mr.lkey(), x.mr.address(), 8)
                .abort();
        assertQuiet(x.scq, x);
        assertQuiet(y.rcq, y);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 0)).isZero();
        x.qp.startWr().wrId(3).send().setSge(x.mr.lkey(), x.mr.address(), 8).complete();
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, WAIT)).isEqualTo(1);
        assertThat(x.wc.wrId(0)).as("only the completed batch ran").isEqualTo(3);
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 1, WAIT)).isEqualTo(1);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, 8192)).isEqualTo(42);
    }

    @Test
    void aSecondStartWhileOpenIsRefused() {
        WrBatch wr = x.qp.startWr();
        assertThatThrownBy(x.qp::startWr).isInstanceOf(IllegalStateException.class).hasMessageContaining("already open");
        wr.abort();
        x.qp.startWr().abort();
    }

    @Test
    void tooManyGatherEntriesFailCompleteWithEinvalAndLeaveTheQpUsable() {
        MemorySegment sges = h.arena.allocate(3 * VerbsAbi.SGE_SIZE, 8);
        for (int j = 0; j < 3; j++) {
            sges.set(ValueLayout.JAVA_LONG, j * 16L + VerbsAbi.SGE_ADDR, x.mr.address() + 8L * j);
            sges.set(ValueLayout.JAVA_INT, j * 16L + VerbsAbi.SGE_LENGTH, 8);
            sges.set(ValueLayout.JAVA_INT, j * 16L + VerbsAbi.SGE_LKEY, x.mr.lkey());
        }
        recv(1);
        WrBatch wr = x.qp.startWr().wrId(1).send().setSge(x.mr.lkey(), x.mr.address(), 8)
                .wrId(2).rdmaWrite(y.mr.rkey(), y.mr.address()).setSgeList(sges, 3);
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(PostException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.failedIndex()).isZero();
            assertThat(e).hasMessageContaining("WR 1 has 3 gather entries, the QP allows 2");
        });
        assertQuiet(x.scq, x);
        assertQuiet(y.rcq, y);
        assertThat(x.qp.state()).isEqualTo(QpState.RTS);
        x.qp.startWr().wrId(3).rdmaWrite(y.mr.rkey(), y.mr.address()).setSgeList(sges, 2).complete();
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, WAIT)).isEqualTo(1);
        assertThat(x.wc.wrId(0)).isEqualTo(3);
        assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    void anInvalidLkeyIsFoundByTheDeviceAsWithPostSend() {
        // the posting does not check lkeys (neither does rxe's ibv_wr_complete): the WR completes in error
        x.qp.startWr().wrId(1).rdmaWrite(y.mr.rkey(), y.mr.address()).setSge(x.mr.lkey() ^ 0x5A5A00, x.mr.address(), 8)
                .complete();
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, WAIT)).isEqualTo(1);
        assertThat(x.wc.wrId(0)).isEqualTo(1);
        assertThat(x.wc.status(0)).isEqualTo(WcStatus.LOC_PROT_ERR);
        assertThat(x.qp.state()).isEqualTo(QpState.ERR);
    }

    @Test
    void aBatchTheSendQueueCannotHoldIsRefusedWhole() {
        // no receive at the peer: the SENDs wait for RNR retries (7 = forever) and hold their slots
        SendBatch sb = SendBatch.allocate(h.arena, 3, 1);
        for (int i = 0; i < 3; i++) {
            sb.clear(i).wrId(i, 10 + i).opcode(i, WrOpcode.SEND).single(i, x.mr.address(), 8, x.mr.lkey());
        }
        x.qp.postSend(sb, 3);
        WrBatch wr = x.qp.startWr().wrId(20).send().setSge(x.mr.lkey(), x.mr.address(), 8)
                .wrId(21).send().setSge(x.mr.lkey(), x.mr.address(), 8);
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(PostException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
            assertThat(e.failedIndex()).isZero();
        });
        recv(5);
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 3, WAIT)).isEqualTo(3);
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, QUIET)).as("neither WR of the batch was posted").isZero();
        assertThat(Harness.pollAtLeast(y.rcq, y.wc, 4, QUIET)).isEqualTo(3);
    }

    @Test
    void udSendsGoWhereSetUdAddrSaysAndABadAddressHandleRefusesTheWholeBatch() {
        Side u = h.udSide(h.a, 1 << 16);
        Side v = h.udSide(h.b, 1 << 16);
        int qkey = 0x11223344;
        for (Side s : new Side[] {u, v}) {
            s.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey));
            s.qp.modify(new QpAttr().state(QpState.RTR));
            s.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        }
        AddressHandle ah = u.pd.createAddressHandle(Harness.path(h.b));
        ProtectionDomain other = h.a.allocPd();
        AddressHandle foreign = other.createAddressHandle(Harness.path(h.b));
        RecvBatch urb = RecvBatch.allocate(h.arena, 2, 1);
        urb.wrId(0, 1).single(0, v.mr.address(), 2048, v.mr.lkey());
        urb.wrId(1, 2).single(1, v.mr.address() + 2048, 2048, v.mr.lkey());
        v.qp.postRecv(urb, 2);
        u.buf.set(ValueLayout.JAVA_LONG, 0, 0x7766_5544_3322_1100L);

        WrBatch wr = u.qp.startWr().wrId(1).send().setSge(u.mr.lkey(), u.mr.address(), 8)
                .setUdAddr(ah, v.qp.qpNum(), qkey)
                .wrId(2).send().setSge(u.mr.lkey(), u.mr.address(), 8).setUdAddr(foreign, v.qp.qpNum(), qkey);
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(PostException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e).hasMessageContaining("WR 1").hasMessageContaining("address handle");
        });
        assertQuiet(v.rcq, v);

        u.qp.startWr().wrId(3).flags(SendFlags.SIGNALED).sendImm(5).setSge(u.mr.lkey(), u.mr.address(), 8)
                .setUdAddr(ah, v.qp.qpNum(), qkey).complete();
        assertThat(Harness.pollAtLeast(u.scq, u.wc, 1, WAIT)).isEqualTo(1);
        assertThat(u.wc.wrId(0)).isEqualTo(3);
        assertThat(Harness.pollAtLeast(v.rcq, v.wc, 1, WAIT)).isEqualTo(1);
        assertThat(v.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(v.wc.srcQp(0)).isEqualTo(u.qp.qpNum());
        assertThat(v.wc.immData(0)).isEqualTo(5);
        assertThat(v.buf.get(ValueLayout.JAVA_LONG, VerbsAbi.GRH_SIZE)).isEqualTo(0x7766_5544_3322_1100L);
        foreign.close();
        ah.close();
    }
}
