package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** UD multicast through the CM: join, send to the group, every member receives, leave, errors. */
public interface MulticastConformance extends Conformance {

    record Member(CmId id, QueuePair qp, CompletionQueue cq, Registered mem, CmEvent joined, ProtectionDomain pd) {}

    private InetSocketAddress group() throws Exception {
        int p = nextPort();
        return new InetSocketAddress(InetAddress.getByName("239.77." + ((p >> 8) & 0xFF) + "." + (p & 0xFF)), 0);
    }

    private Member join(EventChannel ch, InetAddress local, InetSocketAddress group, Object context) {
        return join(ch, local, group, context, false);
    }

    private Member join(EventChannel ch, InetAddress local, InetSocketAddress group, Object context, boolean sendOnly) {
        CmId id = scope().add(ch.createId(PortSpace.UDP, context));
        id.bind(new InetSocketAddress(local, 0));
        assertThat(id.device()).as("binding to a local address binds to its device").isNotNull();
        ProtectionDomain pd = pd(id);
        CompletionQueue cq = cq(id, 64);
        QueuePair qp = qp(id, pd, cq, UdConformance.UD_CAP, true);
        Registered mem = Registered.of(scope(), pd, 64 * 1024);
        postReceives(qp, mem, 0, UdConformance.SLOT, 8, 4000);
        id.joinMulticast(group, sendOnly, context);
        CmEvent joined = pump().expect(ch, CmEventType.MULTICAST_JOIN);
        assertThat(joined.id()).isSameAs(id);
        assertThat(joined.context()).isEqualTo(context);
        assertThat(joined.ud()).isNotNull();
        assertThat(joined.ud().qpNum()).isEqualTo(UdParam.MULTICAST_QPN);
        return new Member(id, qp, cq, mem, joined, pd);
    }

    private void sendToGroup(Member from, String text) {
        AddressHandle ah = scope().add(from.pd().createAddressHandle(from.joined().ud().ahAttr()));
        from.mem().put(60_000, text);
        SendBatch b = sends(1, 1);
        b.wrId(0, 1).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                .single(0, from.mem().address(60_000), text.length(), from.mem().lkey())
                .ud(0, ah, from.joined().ud().qpNum(), from.joined().ud().qkey());
        from.qp().postSend(b, 1);
        assertThat(pump().completions(from.cq(), 1)).anySatisfy(c -> assertThat(c.status()).isEqualTo(WcStatus.SUCCESS));
    }

    private static void assertReceived(Member m, Completion c, String text) {
        assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(c.byteLen()).isEqualTo(VerbsAbi.GRH_SIZE + text.length());
        assertThat(m.mem().get((c.wrId() - 4000) * UdConformance.SLOT + VerbsAbi.GRH_SIZE, text.length())).isEqualTo(text);
    }

    @Test
    default void everyMemberReceivesWhatIsSentToTheGroupUntilItLeaves() throws Exception {
        provider().assume(Capability.MULTICAST);
        EventChannel ch = pump().channel();
        InetSocketAddress group = group();
        Member a = join(ch, provider().client(), group, "member a");
        Member b = join(ch, provider().server(), group, "member b");
        Member sender = join(ch, provider().client(), group, "sender");
        assertThat(fabric().resources().get(ResourceKind.MULTICAST)).isEqualTo(3);

        sendToGroup(sender, "to everyone");
        assertReceived(a, pump().completions(a.cq(), 1).get(0), "to everyone");
        assertReceived(b, pump().completions(b.cq(), 1).get(0), "to everyone");

        a.id().leaveMulticast(group);
        assertThat(fabric().resources().get(ResourceKind.MULTICAST)).isEqualTo(2);
        sendToGroup(sender, "after a left");
        assertReceived(b, pump().completions(b.cq(), 1).get(0), "after a left");
        assertThat(pump().drain(a.cq(), Duration.ofMillis(200))).as("a left the group").isEmpty();
    }

    @Test
    default void aSendOnlyMemberReachesTheGroup() throws Exception {
        provider().assume(Capability.MULTICAST);
        provider().assume(Capability.SEND_ONLY_MULTICAST);
        EventChannel ch = pump().channel();
        InetSocketAddress group = group();
        Member receiver = join(ch, provider().server(), group, "receiver");
        Member sender = join(ch, provider().client(), group, "send-only", true);
        sendToGroup(sender, "from a send-only member");
        assertReceived(receiver, pump().completions(receiver.cq(), 1).get(0), "from a send-only member");
    }

    @Test
    default void aJoinTheProviderCannotHonourFailsTyped() throws Exception {
        provider().assume(Capability.MULTICAST);
        EventChannel ch = pump().channel();
        CmId id = scope().add(ch.createId(PortSpace.UDP, null));
        id.bind(new InetSocketAddress(provider().client(), 0));
        qp(id, pd(id), cq(id, 8), UdConformance.UD_CAP, true);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("ff0e::1:2"), 0);
        try {
            id.joinMulticast(v6, false, "v6");
        } catch (RdmaException e) {
            assertThat(e.errno()).as("synchronous failure").isNotNull();
            return;
        }
        CmEvent e = pump().next(ch);
        assertThat(e.type()).as("an IPv6 group on an IPv4-bound id").isEqualTo(CmEventType.MULTICAST_ERROR);
        assertThat(e.status()).isNegative();
        assertThat(e.context()).isEqualTo("v6");
    }

    @Test
    default void closingAnIdLeavesItsGroups() throws Exception {
        provider().assume(Capability.MULTICAST);
        EventChannel ch = pump().channel();
        InetSocketAddress group = group();
        Member a = join(ch, provider().client(), group, "a");
        assertThat(fabric().resources().get(ResourceKind.MULTICAST)).isEqualTo(1);
        a.id().close();
        assertThat(fabric().resources().get(ResourceKind.MULTICAST)).isZero();
        assertThat(fabric().resources().get(ResourceKind.QUEUE_PAIR)).as("its QP went with it").isZero();
        List<CmEvent> none = pump().maybe(ch, Duration.ofMillis(100)).stream().toList();
        assertThat(none).isEmpty();
    }
}
