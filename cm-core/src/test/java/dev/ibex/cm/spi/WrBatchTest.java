package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.fake.FakeQp.SendWr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link WrBatch}'s rules (the {@code ibv_wr_*} man page) over the fake provider's recording post. */
class WrBatchTest {
    private FakeFabric fabric;
    private ProtectionDomain pd;
    private CompletionQueue cq;

    @BeforeEach
    void open() {
        fabric = FakeFabric.scripted();
        pd = fabric.device(0).allocPd();
        cq = fabric.device(0).createCompletionQueue(16, null, 0);
    }

    @AfterEach
    void close() {
        fabric.close();
    }

    private FakeQp qp(QpType type, QpCap cap) {
        QueuePair qp = pd.createQueuePair(new QpInitAttr(cq, cq, null, cap, type, false, null));
        qp.modify(new QpAttr().state(QpState.RTS));
        return (FakeQp) qp;
    }

    private FakeQp rc() {
        return qp(QpType.RC, new QpCap(4, 4, 2, 1, 16));
    }

    @Test
    void completePostsEveryWrInOrderWithItsIdFlagsAndOperands() {
        FakeQp qp = qp(QpType.RC, new QpCap(8, 4, 2, 1, 16));
        qp.startWr().wrId(1).flags(SendFlags.SIGNALED).sendImm(0x01020304).setSge(5, 0x1000, 64)
                .wrId(2).rdmaWrite(0x77, 0xABC0).setSge(5, 0x2000, 32)
                .atomicCmpSwp(0x78, 0x8000, 3, 4).setSge(5, 0x3000, 8)
                .flags(0).atomicFetchAdd(0x79, 0x9000, 10).setSge(5, 0x3008, 8)
                .rdmaRead(0x7A, 0xA000).setSge(5, 0x4000, 16);
        assertThat(qp.posted()).as("nothing executes before complete()").isEmpty();
        qp.wrBatch().complete();

        assertThat(qp.posted()).extracting(SendWr::opcode).containsExactly(WrOpcode.SEND_WITH_IMM,
                WrOpcode.RDMA_WRITE, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.RDMA_READ);
        assertThat(qp.posted()).extracting(SendWr::wrId).containsExactly(1L, 2L, 2L, 2L, 2L);
        assertThat(qp.posted()).extracting(SendWr::signaled).containsExactly(true, true, true, false, false);
        SendWr send = qp.posted().get(0);
        assertThat(send.imm()).isEqualTo(0x01020304);
        assertThat(send.addr()).containsExactly(0x1000);
        assertThat(send.len()).containsExactly(64);
        assertThat(qp.posted().get(1).remoteAddr()).isEqualTo(0xABC0);
        assertThat(qp.posted().get(1).rkey()).isEqualTo(0x77);
        SendWr cas = qp.posted().get(2);
        assertThat(cas.rkey()).isEqualTo(0x78);
        assertThat(cas.compareAdd()).isEqualTo(3);
        assertThat(cas.swap()).isEqualTo(4);
        assertThat(qp.posted().get(3).compareAdd()).isEqualTo(10);
        assertThat(qp.wrBatch().isOpen()).isFalse();
    }

    @Test
    void onlyOneBatchIsOpenPerQpAndClosedBatchesRefuseBuilders() {
        FakeQp qp = rc();
        WrBatch wr = qp.startWr();
        assertThat(qp.wrBatch()).isSameAs(wr);
        assertThatThrownBy(qp::startWr).isInstanceOf(IllegalStateException.class).hasMessageContaining("already open");
        wr.send().setSge(1, 0x1000, 8).complete();
        assertThatThrownBy(wr::send).isInstanceOf(IllegalStateException.class).hasMessageContaining("startWr()");
        assertThatThrownBy(wr::complete).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(wr::abort).isInstanceOf(IllegalStateException.class);
        assertThat(qp.startWr()).isSameAs(wr);
        wr.abort();
        assertThat(qp.posted()).hasSize(1);
    }

    @Test
    void abortDiscardsTheBatchAndTheNextStartBeginsAfresh() {
        FakeQp qp = rc();
        qp.startWr().wrId(9).send().setSge(1, 0x1000, 8).rdmaWrite(2, 0x2000).setSge(1, 0x1000, 8).abort();
        assertThat(qp.posted()).isEmpty();
        WrBatch wr = qp.startWr();
        assertThat(wr.size()).isZero();
        wr.send().setSge(1, 0x1000, 8).complete();
        assertThat(qp.posted()).extracting(SendWr::wrId).as("wr_id starts at 0 again").containsExactly(0L);
    }

    @Test
    void aWrWithoutItsDataSetterFailsCompleteAndPostsNothing() {
        FakeQp qp = rc();
        WrBatch wr = qp.startWr().send().setSge(1, 0x1000, 8).rdmaWrite(2, 0x2000).send().setSge(1, 0x1000, 8);
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(PostException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.failedIndex()).as("nothing posted").isZero();
            assertThat(e).hasMessageContaining("WR 1 has no data setter");
        });
        assertThat(qp.posted()).isEmpty();
        assertThat(wr.isOpen()).isFalse();
        qp.startWr().send().setSge(1, 0x1000, 8).complete();
        assertThat(qp.posted()).as("the QP takes the next batch").hasSize(1);
    }

    @Test
    void misusesAreReportedByCompleteWithTheirErrno() {
        FakeQp qp = rc();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sges = arena.allocate(3 * VerbsAbi.SGE_SIZE, 8);
            assertRefused(qp.startWr().send().setSgeList(sges, 3), Errno.EINVAL, "3 gather entries, the QP allows 2");
        }
        assertRefused(qp.startWr().rdmaRead(1, 0x1000).setInlineData(0x2000, 8), Errno.EINVAL, "inline data is for");
        assertRefused(qp.startWr().send().setInlineData(0x2000, 17), Errno.EINVAL, "max_inline_data is 16");
        assertRefused(qp.startWr().send().setSge(1, 0x1000, 8).setSge(1, 0x1000, 8), Errno.EINVAL, "second data");
        assertRefused(qp.startWr().setSge(1, 0x1000, 8), Errno.EINVAL, "before any WR builder");
        WrBatch full = qp.startWr();
        for (int i = 0; i < 5; i++) {
            full.send().setSge(1, 0x1000, 8);
        }
        assertRefused(full, Errno.ENOMEM, "WR 4 exceeds the send queue's 4 WRs");
        assertThat(qp.posted()).isEmpty();
    }

    @Test
    void udSendsNeedTheirAddressAndOnlySendOperations() {
        FakeQp ud = qp(QpType.UD, new QpCap(4, 4, 1, 1, 0));
        AddressHandle ah = pd.createAddressHandle(AhAttr.roce(fabric.device(0).queryGid(1, 0), 0, 1));
        assertRefused(ud.startWr().send().setSge(1, 0x1000, 8), Errno.EINVAL, "without set_ud_addr");
        assertRefused(ud.startWr().rdmaWrite(1, 0x1000).setSge(1, 0x1000, 8), Errno.EINVAL, "not an operation of a UD");
        ud.startWr().wrId(3).send().setSge(1, 0x1000, 8).setUdAddr(ah, 0x123, 0x11).complete();
        assertThat(ud.posted()).singleElement().satisfies(w -> {
            assertThat(w.remoteQpn()).isEqualTo(0x123);
            assertThat(w.remoteQkey()).isEqualTo(0x11);
            assertThat(w.ah()).isEqualTo(ah.handle());
        });
        assertRefused(rc().startWr().send().setSge(1, 0x1000, 8).setUdAddr(ah, 1, 1), Errno.EINVAL, "on a RC QP");
    }

    @Test
    void setSgeListCopiesTheEntries() {
        FakeQp qp = rc();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sges = arena.allocate(2 * VerbsAbi.SGE_SIZE, 8);
            for (int j = 0; j < 2; j++) {
                sges.set(ValueLayout.JAVA_LONG, j * 16L + VerbsAbi.SGE_ADDR, 0x1000 * (j + 1));
                sges.set(ValueLayout.JAVA_INT, j * 16L + VerbsAbi.SGE_LENGTH, 10 + j);
                sges.set(ValueLayout.JAVA_INT, j * 16L + VerbsAbi.SGE_LKEY, 7);
            }
            WrBatch wr = qp.startWr().send().setSgeList(sges, 2);
            sges.fill((byte) 0);
            wr.complete();
        }
        assertThat(qp.posted().get(0).addr()).containsExactly(0x1000, 0x2000);
        assertThat(qp.posted().get(0).len()).containsExactly(10, 11);
        assertThat(qp.posted().get(0).lkey()).containsExactly(7, 7);
    }

    private static void assertRefused(WrBatch wr, Errno errno, String why) {
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(PostException.class, e -> {
            assertThat(e.errno()).isEqualTo(errno);
            assertThat(e.failedIndex()).isZero();
            assertThat(e).hasMessageContaining(why);
        });
        assertThat(wr.isOpen()).isFalse();
    }
}
