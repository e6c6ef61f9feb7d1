package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code ibv_wr_*} batch API ({@link WrBatch}, {@code QueuePair.startWr()}): the same semantics on every provider
 * (on rdma-core through {@code ibv_qp_ex} when the QP was made with {@code ibv_create_qp_ex}).
 */
public interface WrBatchConformance extends Conformance {

    private static void assertOk(Completion c, long wrId, int opcode) {
        assertThat(c.status()).as("%s", c).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.wrId()).as("%s", c).isEqualTo(wrId);
        assertThat(WcOpcode.name(c.opcode())).isEqualTo(WcOpcode.name(opcode));
    }

    @Test
    default void wrBatchOfSendWriteReadAndAtomicsCompletesInOrderWithTheRightData() {
        RcPair p = RcPair.connect(this);
        Registered c = p.clientMem;
        Registered s = p.serverMem;
        c.put(0, "batched send");
        c.put(64, "batched write");
        s.put(45000, "batched read");
        s.segment().set(ValueLayout.JAVA_LONG, 50000, 40);
        s.segment().set(ValueLayout.JAVA_LONG, 50008, 7);
        p.clientQp.startWr().wrId(1).sendImm(0x0BADCAFE).setSge(c.lkey(), c.address(0), 12)
                .wrId(2).rdmaWrite(s.rkey(), s.address(40000)).setSge(c.lkey(), c.address(64), 13)
                .wrId(3).rdmaRead(s.rkey(), s.address(45000)).setSge(c.lkey(), c.address(128), 12)
                .wrId(4).atomicCmpSwp(s.rkey(), s.address(50000), 40, 41).setSge(c.lkey(), c.address(256), 8)
                .wrId(5).atomicFetchAdd(s.rkey(), s.address(50008), 5).setSge(c.lkey(), c.address(264), 8)
                .complete();
        List<Completion> done = pump().completions(p.clientCq, 5);
        assertOk(done.get(0), 1, WcOpcode.SEND);
        assertOk(done.get(1), 2, WcOpcode.RDMA_WRITE);
        assertOk(done.get(2), 3, WcOpcode.RDMA_READ);
        assertOk(done.get(3), 4, WcOpcode.COMP_SWAP);
        assertOk(done.get(4), 5, WcOpcode.FETCH_ADD);
        Completion r = pump().completions(p.serverCq, 1).get(0);
        assertThat(r.flags() & WcFlags.WITH_IMM).isNotZero();
        assertThat(r.immData()).isEqualTo(0x0BADCAFE);
        assertThat(s.get(0, 12)).isEqualTo("batched send");
        assertThat(s.get(40000, 13)).isEqualTo("batched write");
        assertThat(c.get(128, 12)).isEqualTo("batched read");
        assertThat(c.segment().get(ValueLayout.JAVA_LONG, 256)).as("CAS returns the original").isEqualTo(40);
        assertThat(s.segment().get(ValueLayout.JAVA_LONG, 50000)).isEqualTo(41);
        assertThat(c.segment().get(ValueLayout.JAVA_LONG, 264)).as("FAA returns the original").isEqualTo(7);
        assertThat(s.segment().get(ValueLayout.JAVA_LONG, 50008)).isEqualTo(12);
    }

    @Test
    default void wrBatchCarriesInlineData() {
        RcPair p = RcPair.connect(this);
        p.clientMem.put(0, "inline!!");
        p.clientQp.startWr().wrId(7).rdmaWrite(p.serverMem.rkey(), p.serverMem.address(50000))
                .setInlineData(p.clientMem.address(0), 8).complete();
        assertOk(pump().completions(p.clientCq, 1).get(0), 7, WcOpcode.RDMA_WRITE);
        assertThat(p.serverMem.get(50000, 8)).isEqualTo("inline!!");
    }

    @Test
    default void wrBatchAbortPostsNothingAndThePeerSeesNothing() {
        RcPair p = RcPair.connect(this);
        p.clientMem.put(0, "never sent");
        p.clientQp.startWr().wrId(1).send().setSge(p.clientMem.lkey(), p.clientMem.address(0), 10)
                .wrId(2).rdmaWrite(p.serverMem.rkey(), p.serverMem.address(50000))
                .setSge(p.clientMem.lkey(), p.clientMem.address(0), 10)
                .abort();
        assertThat(pump().drain(p.clientCq, Duration.ofMillis(300))).isEmpty();
        assertThat(pump().drain(p.serverCq, Duration.ofMillis(1))).isEmpty();
        assertThat(p.serverMem.get(50000, 10)).isNotEqualTo("never sent");
        p.clientQp.startWr().wrId(3).send().setSge(p.clientMem.lkey(), p.clientMem.address(0), 10).complete();
        assertOk(pump().completions(p.clientCq, 1).get(0), 3, WcOpcode.SEND);
        assertThat(pump().completions(p.serverCq, 1).get(0).wrId()).as("the first receive").isEqualTo(1000);
    }

    @Test
    default void wrBatchSecondStartWhileOpenIsRefused() {
        RcPair p = RcPair.connect(this);
        WrBatch wr = p.clientQp.startWr();
        assertThatThrownBy(p.clientQp::startWr).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already open");
        wr.abort();
        p.clientQp.startWr().abort();
    }

    @Test
    default void wrBatchWithTooManyGatherEntriesIsRefusedWholeAndTheQpStaysUsable() {
        RcPair p = RcPair.connect(this);
        int max = p.clientQp.cap().maxSendSge();
        MemorySegment sges = scope().arena().allocate((long) (max + 1) * VerbsAbi.SGE_SIZE, 8);
        for (int j = 0; j <= max; j++) {
            sges.set(ValueLayout.JAVA_LONG, j * 16L + VerbsAbi.SGE_ADDR, p.clientMem.address(8L * j));
            sges.set(ValueLayout.JAVA_INT, j * 16L + VerbsAbi.SGE_LENGTH, 8);
            sges.set(ValueLayout.JAVA_INT, j * 16L + VerbsAbi.SGE_LKEY, p.clientMem.lkey());
        }
        WrBatch wr = p.clientQp.startWr().wrId(1).send().setSge(p.clientMem.lkey(), p.clientMem.address(0), 8)
                .wrId(2).rdmaWrite(p.serverMem.rkey(), p.serverMem.address(0)).setSgeList(sges, max + 1);
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(PostException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.failedIndex()).as("nothing posted").isZero();
            assertThat(e).hasMessageContaining("WR 1 has " + (max + 1) + " gather entries");
        });
        assertThat(pump().drain(p.clientCq, Duration.ofMillis(300))).isEmpty();
        assertThat(pump().drain(p.serverCq, Duration.ofMillis(1))).isEmpty();
        assertThat(p.clientQp.state()).isEqualTo(QpState.RTS);
        p.clientQp.startWr().wrId(3).rdmaWrite(p.serverMem.rkey(), p.serverMem.address(0)).setSgeList(sges, max)
                .complete();
        assertOk(pump().completions(p.clientCq, 1).get(0), 3, WcOpcode.RDMA_WRITE);
    }

    @Test
    default void wrBatchUdSendGoesWhereSetUdAddrSays() {
        EventChannel sch = pump().channel();
        EventChannel cch = pump().channel();
        CmId listener = listen(sch, PortSpace.UDP);
        CmId client = resolved(cch, PortSpace.UDP, listener.localAddress());
        ProtectionDomain cpd = pd(client);
        CompletionQueue ccq = cq(client, 64);
        QueuePair cqp = qp(client, cpd, ccq, UdConformance.UD_CAP, true);
        Registered cmem = Registered.of(scope(), cpd, 64 * 1024);
        client.connect(ConnParam.DEFAULT);
        CmEvent request = pump().expect(sch, CmEventType.CONNECT_REQUEST);
        CmId server = request.id();
        ProtectionDomain spd = pd(server);
        CompletionQueue scq = cq(server, 64);
        QueuePair sqp = qp(server, spd, scq, UdConformance.UD_CAP, true);
        Registered smem = Registered.of(scope(), spd, 64 * 1024);
        postReceives(sqp, smem, 0, UdConformance.SLOT, 2, 3000);
        server.accept(ConnParam.DEFAULT);
        CmEvent established = pump().expect(cch, CmEventType.ESTABLISHED);
        AddressHandle ah = scope().add(cpd.createAddressHandle(established.ud().ahAttr()));

        cmem.put(0, "datagram");
        cqp.startWr().wrId(9).flags(SendFlags.SIGNALED).sendImm(77).setSge(cmem.lkey(), cmem.address(0), 8)
                .setUdAddr(ah, established.ud().qpNum(), established.ud().qkey()).complete();
        assertOk(pump().completions(ccq, 1).get(0), 9, WcOpcode.SEND);
        Completion r = pump().completions(scq, 1).get(0);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.immData()).isEqualTo(77);
        assertThat(r.byteLen()).isEqualTo(VerbsAbi.GRH_SIZE + 8);
        assertThat(smem.get(VerbsAbi.GRH_SIZE, 8)).isEqualTo("datagram");
    }

    /**
     * All or nothing when the provider refuses: a batch of two SENDs with one slot left in the send queue posts
     * neither ({@code ibv_post_send} would post the first). The SENDs wait for receives (RNR, retried forever) and so
     * hold their slots until the server posts some.
     */
    @Test
    default void wrBatchTheSendQueueCannotHoldIsRefusedWhole() {
        RcPair p = RcPair.connect(this, new RcPair.Options().cap(new QpCap(8, 64, 4, 4, 64)).serverReceives(0, 64));
        SendBatch one = sends(1, 1);
        one.wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, p.clientMem.address(0), 8, p.clientMem.lkey());
        int posted = 0;
        while (true) {
            try {
                p.clientQp.postSend(one, 1);
                posted++;
            } catch (PostException full) {
                assertThat(full.errno()).isEqualTo(Errno.ENOMEM);
                break;
            }
            assertThat(posted).as("the send queue fills").isLessThan(1 << 16);
        }
        postReceives(p.serverQp, p.serverMem, 0, 64, 1, 1000);
        assertThat(pump().completions(p.clientCq, 1)).hasSize(1);
        WrBatch wr = p.clientQp.startWr().wrId(2).send().setSge(p.clientMem.lkey(), p.clientMem.address(0), 8)
                .wrId(3).send().setSge(p.clientMem.lkey(), p.clientMem.address(0), 8);
        assertThatThrownBy(wr::complete).isInstanceOfSatisfying(PostException.class, e -> {
            // ibv_post_send and soft-roce say ENOMEM; rxe's ibv_wr_complete says ENOSPC
            assertThat(e.errno()).isIn(Errno.ENOMEM, Errno.ENOSPC);
            assertThat(e.failedIndex()).as("nothing posted").isZero();
        });
        postReceives(p.serverQp, p.serverMem, 0, 64, posted + 1, 2000);
        List<Completion> rest = pump().completions(p.clientCq, posted - 1);
        assertThat(rest).extracting(Completion::wrId).containsOnly(1L);
        assertThat(pump().drain(p.clientCq, Duration.ofMillis(300))).as("neither WR of the batch").isEmpty();
    }
}
