package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.UdParam;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Every {@code RDMA_CM_EVENT_*} of the SPI reaches {@link RdmaCmChannel#events(CmId)} as a copy (scripted on cm-core's
 * fake, which can raise what a real CM raises only on rare occasions: DEVICE_REMOVAL, ADDR_CHANGE, CONNECT_ERROR…).
 */
class CmEventTypesTest {

    @Test
    void everyEventTypeArrivesWithWhatItCarries() throws Exception {
        try (FakeHosts hosts = FakeHosts.scripted()) {
            try (RdmaCmChannel ch = RdmaCmChannel.open(hosts.group)) {
                check(ch);
            }
        }
    }

    private static void check(RdmaCmChannel ch) throws Exception {
        FakeCmId id = (FakeCmId) ch.createId(PortSpace.TCP, null);
        CmId other = ch.createId(PortSpace.TCP, null);
        ((FakeCmId) other).inject(CmEventType.ADDR_RESOLVED, 0, null); // another id's: filtered out
        List<RdmaCmEvent> got = new CopyOnWriteArrayList<>();
        ch.events(id).subscribe(got::add);
        ch.onLoop(() -> true); // events() is hot: the subscription is attached by a task queued before this
        for (CmEventType t : CmEventType.values()) {
            byte[] data = {(byte) (1 + t.ordinal()), 2, 3};
            if (t == CmEventType.MULTICAST_JOIN) {
                UdParam ud = new UdParam(data, AhAttr.roce(Gid.of(InetAddress.getByName("239.1.1.1")), 0, 1),
                        UdParam.MULTICAST_QPN, UdParam.RDMA_UDP_QKEY);
                id.inject(t, 0, ud, "join context");
            } else {
                id.inject(t, -t.code(), data);
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> got.size() == CmEventType.values().length);
        assertThat(got).extracting(RdmaCmEvent::type).containsExactly(CmEventType.values());
        for (RdmaCmEvent e : got) {
            assertThat(e.id()).isSameAs(id);
            assertThat(e.privateData()).startsWith((byte) (1 + e.type().ordinal()), (byte) 2, (byte) 3);
            if (e.type() == CmEventType.MULTICAST_JOIN) {
                assertThat(e.ud().qpNum()).isEqualTo(UdParam.MULTICAST_QPN);
                assertThat(e.ud().qkey()).isEqualTo(UdParam.RDMA_UDP_QKEY);
                assertThat(e.context()).isEqualTo("join context");
            } else {
                assertThat(e.status()).isEqualTo(-e.type().code());
            }
        }
        // the event is a copy: what the accessor returns can be changed freely
        got.get(0).privateData()[1] = 9;
        assertThat(got.get(0).privateData()[1]).isEqualTo((byte) 2);
    }
}
