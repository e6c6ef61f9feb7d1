package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** UD over RDMA_PS_UDP: SIDR resolution with private data, datagrams with their 40-byte GRH, Q_Key checks. */
public interface UdConformance extends Conformance {
    QpCap UD_CAP = new QpCap(16, 16, 1, 1, 0);
    int SLOT = 512;

    /** Both ends of a SIDR exchange: the client knows the server's QPN/Q_Key and has an AH to it. */
    record UdPair(CmId client, CmId server, QueuePair clientQp, QueuePair serverQp, CompletionQueue clientCq,
            CompletionQueue serverCq, Registered clientMem, Registered serverMem, CmEvent request, CmEvent established,
            AddressHandle ah) {
        UdParam remote() {
            return established.ud();
        }
    }

    private UdPair udPair(byte[] connectData, byte[] acceptData) {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.UDP);
        CmId client = resolved(c, PortSpace.UDP, listener.localAddress());
        assertThat(client.qpType()).isEqualTo(QpType.UD);
        ProtectionDomain cpd = pd(client);
        CompletionQueue ccq = cq(client, 64);
        QueuePair cqp = qp(client, cpd, ccq, UD_CAP, true);
        Registered cmem = Registered.of(scope(), cpd, 64 * 1024);
        client.connect(ConnParam.DEFAULT.withPrivateData(connectData));

        CmEvent request = pump().expect(s, CmEventType.CONNECT_REQUEST);
        CmId server = request.id();
        assertThat(server.portSpace()).isEqualTo(PortSpace.UDP);
        ProtectionDomain spd = pd(server);
        CompletionQueue scq = cq(server, 64);
        QueuePair sqp = qp(server, spd, scq, UD_CAP, true);
        Registered smem = Registered.of(scope(), spd, 64 * 1024);
        postReceives(sqp, smem, 0, SLOT, 8, 3000);
        server.accept(ConnParam.DEFAULT.withPrivateData(acceptData));

        CmEvent established = pump().expect(c, CmEventType.ESTABLISHED);
        assertThat(established.ud()).as("UD parameters of the SIDR reply").isNotNull();
        AddressHandle ah = scope().add(cpd.createAddressHandle(established.ud().ahAttr()));
        return new UdPair(client, server, cqp, sqp, ccq, scq, cmem, smem, request, established, ah);
    }

    private void sendDatagram(UdPair u, long wrId, String text, int qkey) {
        u.clientMem.put(wrId * 64, text);
        SendBatch b = sends(1, 1);
        b.wrId(0, wrId).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                .single(0, u.clientMem.address(wrId * 64), text.length(), u.clientMem.lkey())
                .ud(0, u.ah, u.remote().qpNum(), qkey);
        u.clientQp.postSend(b, 1);
    }

    @Test
    default void sidrResolvesTheRemoteQpAndDatagramsArriveAfterA40ByteGrh() {
        UdPair u = udPair(new byte[] {1, 2, 3}, new byte[] {4, 5});
        assertThat(u.request().ud()).as("UD parameters of the SIDR request").isNotNull();
        CmConformance.assertCarries(u.request().privateData(), new byte[] {1, 2, 3}, 180);
        CmConformance.assertCarries(u.established().privateData(), new byte[] {4, 5}, 136);
        assertThat(u.remote().qpNum()).isEqualTo(u.serverQp().qpNum());
        assertThat(u.remote().qkey()).isEqualTo(UdParam.RDMA_UDP_QKEY);

        sendDatagram(u, 1, "datagram one", u.remote().qkey());
        Completion r = pump().completions(u.serverCq(), 1).get(0);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(r.flags() & WcFlags.GRH).as("a GRH is present").isNotZero();
        assertThat(r.byteLen()).as("payload plus the GRH").isEqualTo(VerbsAbi.GRH_SIZE + 12);
        assertThat(r.srcQp()).isEqualTo(u.clientQp().qpNum());
        long slot = (r.wrId() - 3000) * SLOT;
        assertThat(u.serverMem().get(slot + VerbsAbi.GRH_SIZE, 12)).as("payload at offset 40").isEqualTo("datagram one");
        assertThat(pump().completions(u.clientCq(), 1).get(0).status()).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    default void udPrivateDataLimitsAreEnforcedBeforeSending() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.UDP);
        CmId client = resolved(c, PortSpace.UDP, listener.localAddress());
        qp(client, pd(client), cq(client, 8), UD_CAP, true);
        assertThatThrownBy(() -> client.connect(ConnParam.DEFAULT.withPrivateData(new byte[CmId.MAX_CONNECT_PRIVATE_DATA_UDP + 1])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("180");
        byte[] max = CmConformance.pattern(CmId.MAX_CONNECT_PRIVATE_DATA_UDP, 5);
        client.connect(ConnParam.DEFAULT.withPrivateData(max));
        CmEvent request = pump().expect(s, CmEventType.CONNECT_REQUEST);
        CmConformance.assertCarries(request.privateData(), max, CmId.MAX_CONNECT_PRIVATE_DATA_UDP);
        CmId server = request.id();
        qp(server, pd(server), cq(server, 8), UD_CAP, true);
        assertThatThrownBy(() -> server.accept(ConnParam.DEFAULT.withPrivateData(new byte[CmId.MAX_ACCEPT_PRIVATE_DATA_UDP + 1])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("136");
        byte[] reply = CmConformance.pattern(CmId.MAX_ACCEPT_PRIVATE_DATA_UDP, 8);
        server.accept(ConnParam.DEFAULT.withPrivateData(reply));
        CmConformance.assertCarries(pump().expect(c, CmEventType.ESTABLISHED).privateData(), reply,
                CmId.MAX_ACCEPT_PRIVATE_DATA_UDP);
    }

    @Test
    default void aDatagramWithTheWrongQkeyIsDropped() {
        UdPair u = udPair(new byte[0], new byte[0]);
        sendDatagram(u, 1, "wrong key", 0x0BADBAD0);
        sendDatagram(u, 2, "right key", u.remote().qkey());
        List<Completion> got = pump().completions(u.serverCq(), 1);
        got.addAll(pump().drain(u.serverCq(), Duration.ofMillis(200)));
        assertThat(got).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(r.byteLen()).isEqualTo(VerbsAbi.GRH_SIZE + 9);
            assertThat(u.serverMem().get((r.wrId() - 3000) * SLOT + VerbsAbi.GRH_SIZE, 9)).isEqualTo("right key");
        });
        assertThat(pump().completions(u.clientCq(), 2)).as("both sends complete: UD drops silently")
                .allSatisfy(c -> assertThat(c.status()).isEqualTo(WcStatus.SUCCESS));
    }

    @Test
    default void aUdRejectReachesTheClientAsATypedFailure() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.UDP);
        CmId client = resolved(c, PortSpace.UDP, listener.localAddress());
        qp(client, pd(client), cq(client, 8), UD_CAP, true);
        client.connect(ConnParam.DEFAULT);
        CmId server = pump().expect(s, CmEventType.CONNECT_REQUEST).id();
        server.reject(new byte[] {9});
        CmEvent e = pump().next(c);
        assertThat(e.type()).as("SIDR_REP status 2 (rejected)").isIn(CmEventType.UNREACHABLE, CmEventType.REJECTED);
        assertThat(e.status()).isNotZero();
    }
}
