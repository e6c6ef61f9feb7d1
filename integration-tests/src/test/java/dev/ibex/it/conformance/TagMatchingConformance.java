package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SrqOpsBatch;
import dev.ibex.cm.spi.TagMatchingHeader;
import dev.ibex.cm.spi.TagMatchingSrq;
import dev.ibex.cm.spi.TmCaps;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Tag matching (seed 002, rdma-core's {@code Documentation/tag_matching.md}) over a CM-established RC connection whose
 * server QP sits on a tag-matching SRQ: where the device has it, eager matching, unexpected messages, phase sync and
 * TAG_DEL behave as documented; where it does not, creation is a typed ENOTSUP that agrees with {@code tm_caps}.
 */
public interface TagMatchingConformance extends Conformance {

    @Test
    default void tagMatchingSrqExistsExactlyWhenTmCapsSayIt() {
        EventChannel s = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        DeviceContext device = listener.device();
        TmCaps caps = device.queryTmCaps();
        ProtectionDomain pd = scope().add(device.allocPd());
        CompletionQueue cq = cq(listener, 64);
        if (caps.supported()) {
            TagMatchingSrq srq = scope().add(pd.createTagMatchingSrq(cq, 16, 1, Math.min(16, caps.maxNumTags()),
                    Math.min(4, caps.maxOps())));
            assertThat(srq.cq()).isSameAs(cq);
            assertThat(srq.maxNumTags()).isPositive();
        } else {
            assertThat(caps.maxNumTags()).isZero();
            assertThatThrownBy(() -> pd.createTagMatchingSrq(cq, 16, 1, 16, 4)).isInstanceOfSatisfying(
                    RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOTSUP))
                    .hasMessageContaining("tag matching");
        }
    }

    @Test
    default void tagMatchingEagerUnexpectedSyncAndDelOverAnRcConnection() {
        provider().assume(Capability.TAG_MATCHING);
        EventChannel s = pump().channel();
        CmId listener = listen(s, PortSpace.TCP);
        DeviceContext device = listener.device();
        ProtectionDomain pd = scope().add(device.allocPd());
        Registered mem = Registered.of(scope(), pd, RcPair.BUFFER);
        CompletionQueue cq = cq(listener, 64);
        TagMatchingSrq srq = scope().add(pd.createTagMatchingSrq(cq, 16, 1, 16, 4));
        RcPair p = RcPair.connect(this, new RcPair.Options().channels(s, null).listener(listener)
                .serverSide(pd, cq, mem).srq(srq));
        SrqOpsBatch ops = SrqOpsBatch.allocate(scope().arena(), 2, 1);
        SendBatch send = sends(1, 1);

        // two tags, the second signaled: one TM_ADD completion, in sync
        ops.tagAdd(0, 1, 0, 101, 0x5, -1L).single(0, mem.address(0), 256, mem.lkey());
        ops.tagAdd(1, 2, SrqOpsBatch.SIGNALED, 102, 0x6, -1L).single(1, mem.address(256), 256, mem.lkey());
        srq.postSrqOps(ops, 2);
        int handle6 = ops.handle(1);
        Completion added = pump().completions(cq, 1).get(0);
        assertThat(added.opcode()).isEqualTo(WcOpcode.TM_ADD);
        assertThat(added.wrId()).isEqualTo(2);
        assertThat(added.flags() & WcFlags.TM_SYNC_REQ).isZero();

        // an eager message for tag 5 lands in its buffer without the TMH
        sendTagged(p, send, TagMatchingHeader.EAGER, 0xA1, 0x5, "for tag five");
        Completion m = pump().completions(cq, 1).get(0);
        assertThat(m.opcode()).as("%s", m).isEqualTo(WcOpcode.TM_RECV);
        assertThat(m.wrId()).isEqualTo(101);
        assertThat(m.tmTag()).isEqualTo(0x5);
        assertThat(m.tmPriv()).isEqualTo(0xA1);
        assertThat(m.byteLen()).isEqualTo(12);
        assertThat(m.flags() & (WcFlags.TM_MATCH | WcFlags.TM_DATA_VALID))
                .isEqualTo(WcFlags.TM_MATCH | WcFlags.TM_DATA_VALID);
        assertThat(mem.get(0, 12)).isEqualTo("for tag five");

        // TAG_DEL of tag 6 succeeds; a second TAG_DEL of the same handle fails with TM_ERR
        ops.clear(0).tagDel(0, 3, SrqOpsBatch.SIGNALED, handle6);
        srq.postSrqOps(ops, 1);
        assertThat(pump().completions(cq, 1).get(0).status()).isEqualTo(WcStatus.SUCCESS);
        ops.clear(0).tagDel(0, 4, SrqOpsBatch.SIGNALED, handle6);
        srq.postSrqOps(ops, 1);
        Completion failed = pump().completions(cq, 1).get(0);
        assertThat(failed.status()).isEqualTo(WcStatus.TM_ERR);
        assertThat(failed.wrId()).isEqualTo(4);

        // a message for the removed tag is unexpected: whole, in an ordinary receive, asking for a sync
        RecvBatch r = recvs(1, 1);
        r.wrId(0, 900).single(0, mem.address(4096), 256, mem.lkey());
        srq.postRecv(r, 1);
        sendTagged(p, send, TagMatchingHeader.EAGER, 0xA2, 0x6, "for tag six");
        Completion u = pump().completions(cq, 1).get(0);
        assertThat(u.opcode()).isEqualTo(WcOpcode.RECV);
        assertThat(u.wrId()).isEqualTo(900);
        assertThat(u.byteLen()).isEqualTo(TagMatchingHeader.SIZE + 11);
        assertThat(u.flags() & WcFlags.TM_SYNC_REQ).isEqualTo(WcFlags.TM_SYNC_REQ);
        assertThat(mem.get(4096 + TagMatchingHeader.SIZE, 11)).isEqualTo("for tag six");

        // a tag added together with the sync of that one unexpected message matches at once
        ops.clear(0).tagAdd(0, 5, SrqOpsBatch.SIGNALED, 103, 0x6, -1L).single(0, mem.address(512), 256, mem.lkey())
                .unexpectedCnt(0, 1);
        srq.postSrqOps(ops, 1);
        assertThat(pump().completions(cq, 1).get(0).flags() & WcFlags.TM_SYNC_REQ).isZero();
        sendTagged(p, send, TagMatchingHeader.EAGER, 0xA3, 0x6, "six again");
        Completion again = pump().completions(cq, 1).get(0);
        assertThat(again.opcode()).isEqualTo(WcOpcode.TM_RECV);
        assertThat(again.wrId()).isEqualTo(103);
        assertThat(mem.get(512, 9)).isEqualTo("six again");

        // an untagged message goes to an ordinary receive as TM_NO_TAG
        r.wrId(0, 901).single(0, mem.address(8192), 256, mem.lkey());
        srq.postRecv(r, 1);
        sendTagged(p, send, TagMatchingHeader.NO_TAG, 0, 0, "plain");
        Completion plain = pump().completions(cq, 1).get(0);
        assertThat(plain.opcode()).isEqualTo(WcOpcode.TM_NO_TAG);
        assertThat(plain.wrId()).isEqualTo(901);
    }

    private void sendTagged(RcPair p, SendBatch send, int op, int ctx, long tag, String text) {
        Registered c = p.clientMem;
        TagMatchingHeader.write(c.segment(), 0, op, ctx, tag);
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        c.put(TagMatchingHeader.SIZE, text);
        send.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).flags(0, SendFlags.SIGNALED)
                .single(0, c.address(0), TagMatchingHeader.SIZE + bytes.length, c.lkey());
        p.clientQp.postSend(send, 1);
        assertThat(pump().completions(p.clientCq, 1).get(0).status()).isEqualTo(WcStatus.SUCCESS);
    }
}
