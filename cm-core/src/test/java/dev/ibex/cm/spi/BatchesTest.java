package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class BatchesTest {

    @Test
    void sendBatchWritesIbvSendWrLayout() {
        try (Arena arena = Arena.ofConfined()) {
            SendBatch b = SendBatch.allocate(arena, 4, 2);
            b.wrId(1, 0x1122334455667788L).opcode(1, WrOpcode.RDMA_WRITE_WITH_IMM).flags(1, SendFlags.SIGNALED)
                    .immData(1, 0x01020304).rdma(1, 0xABCDEF00L, 0x77).sge(1, 0, 0x1000, 64, 5)
                    .sge(1, 1, 0x2000, 32, 6).numSge(1, 2);
            long wr1 = 128;
            var s = b.segment();
            assertThat(s.get(ValueLayout.JAVA_LONG, wr1)).isEqualTo(0x1122334455667788L);
            assertThat(s.get(ValueLayout.JAVA_INT, wr1 + 28)).isEqualTo(1);
            assertThat(s.get(ValueLayout.JAVA_INT, wr1 + 32)).isEqualTo(2);
            // imm_data is __be32: the bytes are in network order
            assertThat(s.get(ValueLayout.JAVA_BYTE, wr1 + 36)).isEqualTo((byte) 1);
            assertThat(s.get(ValueLayout.JAVA_BYTE, wr1 + 39)).isEqualTo((byte) 4);
            assertThat(s.get(ValueLayout.JAVA_LONG, wr1 + 40)).isEqualTo(0xABCDEF00L);
            assertThat(s.get(ValueLayout.JAVA_INT, wr1 + 48)).isEqualTo(0x77);
            long sgList = s.get(ValueLayout.JAVA_LONG, wr1 + 16);
            long sgeOff = sgList - s.address();
            assertThat(sgeOff).isEqualTo(4 * 128 + 2 * 16);
            assertThat(s.get(ValueLayout.JAVA_LONG, sgeOff + 16)).isEqualTo(0x2000);
            assertThat(s.get(ValueLayout.JAVA_INT, sgeOff + 16 + 8)).isEqualTo(32);
            assertThat(b.immData(1)).isEqualTo(0x01020304);
            assertThat(b.sgeLkey(1, 1)).isEqualTo(6);

            long head = b.link(3);
            assertThat(head).isEqualTo(s.address());
            assertThat(s.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(s.address() + 128);
            assertThat(s.get(ValueLayout.JAVA_LONG, 128 + 8)).isEqualTo(s.address() + 256);
            assertThat(s.get(ValueLayout.JAVA_LONG, 256 + 8)).isZero();
            assertThat(b.indexOf(s.address() + 256)).isEqualTo(2);

            b.clear(1);
            assertThat(b.wrId(1)).isZero();
            assertThat(s.get(ValueLayout.JAVA_LONG, wr1 + 16)).isEqualTo(sgList);
        }
    }

    @Test
    void atomicAndUdFieldsUseTheirUnionOffsets() {
        try (Arena arena = Arena.ofConfined()) {
            SendBatch b = SendBatch.allocate(arena, 1, 1);
            b.atomic(0, 0x4000, 7, 9, 0x55);
            assertThat(b.atomicCompareAdd(0)).isEqualTo(7);
            assertThat(b.atomicSwap(0)).isEqualTo(9);
            assertThat(b.segment().get(ValueLayout.JAVA_INT, 64)).isEqualTo(0x55);
            AddressHandle ah = new AddressHandle() {
                @Override public long handle() { return 0xDEADL; }
                @Override public AhAttr attr() { return null; }
                @Override public void close() {}
            };
            b.ud(0, ah, 0xFFFFFF, UdParam.RDMA_UDP_QKEY);
            assertThat(b.udAh(0)).isEqualTo(0xDEADL);
            assertThat(b.segment().get(ValueLayout.JAVA_INT, 48)).isEqualTo(0xFFFFFF);
            assertThat(b.segment().get(ValueLayout.JAVA_INT, 52)).isEqualTo(0x01234567);
        }
    }

    @Test
    void recvBatchLinksAndBoundsChecks() {
        try (Arena arena = Arena.ofConfined()) {
            RecvBatch r = RecvBatch.allocate(arena, 2, 1);
            r.wrId(0, 42).single(0, 0x9000, 128, 3);
            assertThat(r.link(1)).isEqualTo(r.segment().address());
            assertThat(r.segment().get(ValueLayout.JAVA_LONG, 8)).isZero();
            assertThat(r.segment().get(ValueLayout.JAVA_INT, 24)).isEqualTo(1);
            assertThatThrownBy(() -> r.link(3)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> r.sge(0, 1, 0, 0, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void completionBatchRoundTripsIbvWc() {
        try (Arena arena = Arena.ofConfined()) {
            CompletionBatch c = CompletionBatch.allocate(arena, 3);
            c.set(2, 99, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_WRITE, 0, 0x123, 0);
            c.set(1, 7, WcStatus.SUCCESS, WcOpcode.RECV, 4096, 0x12, WcFlags.WITH_IMM | WcFlags.GRH);
            c.setImmData(1, 0xCAFEBABE);
            c.setSrcQp(1, 0x44);
            assertThat(c.wrId(2)).isEqualTo(99);
            assertThat(c.status(2)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(c.segment().get(ValueLayout.JAVA_INT, 2 * 48 + 8)).isEqualTo(10);
            assertThat(c.immData(1)).isEqualTo(0xCAFEBABE);
            assertThat(c.segment().get(ValueLayout.JAVA_BYTE, 48 + 24)).isEqualTo((byte) 0xCA);
            assertThat(c.byteLen(1)).isEqualTo(4096);
            assertThat(c.srcQp(1)).isEqualTo(0x44);
            assertThat(WcOpcode.isReceive(c.opcode(1))).isTrue();
        }
    }

    @Test
    void gidMapsIpv4AsRoceV2Does() throws Exception {
        Gid g = Gid.of(InetAddress.getByName("127.0.0.2"));
        assertThat(g.isIpv4Mapped()).isTrue();
        assertThat(g.toString()).isEqualTo("::ffff:127.0.0.2");
        assertThat(g.toInetAddress()).isEqualTo(InetAddress.getByName("127.0.0.2"));
        assertThat(Gid.of(g.raw())).isEqualTo(g);
        assertThat(Gid.of(InetAddress.getByName("fe80::1")).toString()).isEqualTo("fe80:0000:0000:0000:0000:0000:0000:0001");
        assertThatThrownBy(() -> Gid.of(new byte[4])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void qpAttrSettersSetTheirMaskBits() {
        QpAttr a = new QpAttr().state(QpState.RTS).altPath(AhAttr.roce(Gid.ZERO, 1, 1), 1, 14)
                .pathMigState(MigState.REARM);
        assertThat(a.mask()).isEqualTo(QpAttr.STATE | QpAttr.ALT_PATH | QpAttr.PATH_MIG_STATE);
        assertThat(a.altTimeout()).isEqualTo(14);
        assertThat(new QpAttr().sqPsn(0x1FFFFFF).sqPsn()).isEqualTo(0xFFFFFF);
    }

    @Test
    void connParamValidatesRanges() {
        assertThatThrownBy(() -> ConnParam.DEFAULT.withRetries(8, 7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryCount");
        assertThat(PortSpace.TCP.serviceId(7471)).isEqualTo(0x0000000001061D2FL);
        assertThat(Access.validatedMask(java.util.EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))).isEqualTo(3);
        assertThatThrownBy(() -> Access.validatedMask(java.util.EnumSet.of(Access.REMOTE_WRITE)))
                .hasMessageContaining("require LOCAL_WRITE");
    }
}
