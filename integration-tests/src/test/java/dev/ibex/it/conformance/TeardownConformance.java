package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WrOpcode;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Closing in every state, with work in flight: whatever is open when a test ends is closed by its scope (children
 * first) and the suite then requires zero resources; these tests make sure each state is reached first.
 */
public interface TeardownConformance extends Conformance {

    @Test
    default void closeWhileResolvingTheAddress() {
        EventChannel s = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        EventChannel c = pump().channel();
        CmId id = c.createId(PortSpace.TCP, null);
        id.resolveAddr(clientSource(), listener.localAddress(), timeoutMs());
        id.close();
    }

    @Test
    default void closeWhileResolvingTheRoute() {
        EventChannel s = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        EventChannel c = pump().channel();
        CmId id = scope().add(c.createId(PortSpace.TCP, null));
        id.resolveAddr(clientSource(), listener.localAddress(), timeoutMs());
        pump().expect(c, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(timeoutMs());
    }

    @Test
    default void closeWhileConnectingAndWithAnUnansweredRequest() {
        EventChannel s = pump().channel();
        EventChannel c = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        CmId client = resolved(c, PortSpace.TCP, listener.localAddress());
        qp(client, pd(client), cq(client, 8), CmConformance.SMALL, true);
        client.connect(ConnParam.DEFAULT);
        pump().expect(s, CmEventType.CONNECT_REQUEST);
        // neither side answers: the scope closes the client (connecting), the new id (requested) and the listener
    }

    @Test
    default void closeAnEstablishedConnectionWithWorkInFlight() {
        RcPair p = RcPair.connect(this, new RcPair.Options().serverReceives(4, 4096));
        postReceives(p.clientQp, p.clientMem, 0, 1024, 8, 1);
        SendBatch b = sends(16, 1);
        for (int i = 0; i < 16; i++) {
            b.wrId(i, i).opcode(i, i % 2 == 0 ? WrOpcode.SEND : WrOpcode.RDMA_WRITE).flags(i, SendFlags.SIGNALED)
                    .single(i, p.clientMem.address(i * 1024L), 1024, p.clientMem.lkey())
                    .rdma(i, p.serverMem.address(i * 1024L), p.serverMem.rkey());
        }
        p.clientQp.postSend(b, 16);
        // no polling, no disconnect: completions, unacked CQ state and RNR retries are all in flight at close
    }

    @Test
    default void closeAfterDisconnecting() {
        RcPair p = RcPair.connect(this);
        p.client.disconnect();
        pump().expect(p.serverChannel, CmEventType.DISCONNECTED);
    }

    @Test
    default void closingTheFabricClosesEverythingInVerbsOrder() {
        Fabric other = provider().openSecond();
        Scope scope = new Scope();
        EventPump pump = new EventPump(other, scope, pump().timeout());
        AtomicInteger ports = new AtomicInteger(nextPort() + 1000);
        Conformance inner = new Conformance() {
            @Override public ProviderUnderTest provider() { return TeardownConformance.this.provider(); }
            @Override public Fabric fabric() { return other; }
            @Override public Scope scope() { return scope; }
            @Override public EventPump pump() { return pump; }
            @Override public int nextPort() { return ports.incrementAndGet(); }
        };
        try {
            RcPair p = RcPair.connect(inner);
            ProtectionDomain pd = p.clientPd;
            CompletionChannel cc = p.client.device().createCompletionChannel();
            p.client.device().createCompletionQueue(8, cc, 0);
            pd.createSharedReceiveQueue(8, 1, 2);
            pd.createAddressHandle(AhAttr.roce(Gid.of(provider().server()),
                    p.client.device().gidIndexOf(p.client.portNum(), Gid.of(provider().client())), p.client.portNum()));
            SendBatch b = inner.sends(4, 1);
            for (int i = 0; i < 4; i++) {
                b.wrId(i, i).opcode(i, WrOpcode.SEND).flags(i, SendFlags.SIGNALED)
                        .single(i, p.clientMem.address(0), 64, p.clientMem.lkey());
            }
            p.clientQp.postSend(b, 4);
            assertThat(other.resources().userResources()).isGreaterThan(10);

            other.close();
            assertThat(other.resources().total()).as("%s", other.resources()).isZero();
            assertThatThrownBy(() -> p.clientQp.postSend(b, 1)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> p.client.disconnect()).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(other::createEventChannel).isInstanceOf(IllegalStateException.class);
            other.close();
        } finally {
            other.close();
            scope.close();
        }
    }
}
