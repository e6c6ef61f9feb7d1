package dev.ibex.softroce.mad;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.softroce.wire.MalformedPacketException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** cma_hdr (wire.md §3.1), service IDs (§3.2) and the private-data limits users hit. */
class RdmaCmTest {
    @Test
    void cmaHeaderIpv4Layout() throws Exception {
        CmaHeader h = CmaHeader.of(0xBB27, InetAddress.getByName("10.77.0.1"), InetAddress.getByName("10.77.0.2"));
        Octets pd = h.withUserData(Octets.of((byte) 'P', (byte) 'D'));
        assertThat(pd.length()).isEqualTo(38);
        assertThat(HexFormat.of().formatHex(pd.toArray())).isEqualTo("0040bb27"
                + "000000000000000000000000" + "0a4d0001"
                + "000000000000000000000000" + "0a4d0002" + "5044");
        assertThat(CmaHeader.decode(pd)).isEqualTo(h);
        assertThat(CmaHeader.userData(pd)).isEqualTo(Octets.of((byte) 'P', (byte) 'D'));
        assertThat(CmaHeader.userData(Octets.zeros(36))).isEqualTo(Octets.EMPTY);
    }

    @Test
    void cmaHeaderIpv6() throws Exception {
        CmaHeader h = CmaHeader.of(1, InetAddress.getByName("fe80::1"), InetAddress.getByName("fe80::2"));
        assertThat(h.ipVersion()).isEqualTo(6);
        MemorySegment s = MemorySegment.ofArray(new byte[40]);
        h.encode(s, 2);
        assertThat(CmaHeader.decode(s, 2)).isEqualTo(h);
    }

    @Test
    void cmaHeaderRefusals() throws Exception {
        InetAddress v4 = InetAddress.getByName("10.0.0.1"), v6 = InetAddress.getByName("::2");
        assertThatThrownBy(() -> CmaHeader.of(1, v4, v6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CmaHeader(0, 5, 1, v4, v4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CmaHeader.of(65536, v4, v4)).isInstanceOf(IllegalArgumentException.class);
        byte[] bad = new byte[36];
        bad[1] = 0x50;
        assertThatThrownBy(() -> CmaHeader.decode(Octets.of(bad))).isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("IP version 5");
        assertThatThrownBy(() -> CmaHeader.decode(Octets.zeros(35))).isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void serviceIds() {
        long sid = ServiceId.of(PortSpace.TCP, 7471);
        assertThat(sid).isEqualTo(0x0000_0000_0106_1D2FL);
        assertThat(ServiceId.portSpace(sid)).isEqualTo(PortSpace.TCP);
        assertThat(ServiceId.port(sid)).isEqualTo(7471);
        assertThat(ServiceId.isIpCm(sid)).isTrue();
        assertThat(ServiceId.of(PortSpace.UDP, 0)).isEqualTo(0x0000_0000_0111_0000L);
        assertThat(ServiceId.of(PortSpace.IB, 65535)).isEqualTo(0x0000_0000_013F_FFFFL);
        assertThat(ServiceId.of(PortSpace.IPOIB, 1)).isEqualTo(0x0000_0000_0002_0001L);
        assertThat(ServiceId.isIpCm(ServiceId.of(PortSpace.IPOIB, 1))).isFalse();
        assertThat(ServiceId.portSpace(0x0000_0000_0199_0001L)).isNull();
        assertThat(ServiceId.portSpace(0x1000_0000_0106_0001L)).isNull();
        assertThat(ServiceId.describe(sid)).isEqualTo("0x0000000001061d2f (RDMA_PS_TCP:7471)");
        assertThat(sid & ServiceId.PORT_SPACE_MASK).isEqualTo(0x0106_0000L);
        assertThatThrownBy(() -> ServiceId.of(PortSpace.TCP, 65536)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void privateDataLimits() {
        assertThat(PrivateDataLimits.connect(PortSpace.TCP)).isEqualTo(56);
        assertThat(PrivateDataLimits.connect(PortSpace.IB)).isEqualTo(56);
        assertThat(PrivateDataLimits.connect(PortSpace.UDP)).isEqualTo(180);
        assertThat(PrivateDataLimits.connect(PortSpace.IPOIB)).isEqualTo(180);
        assertThat(PrivateDataLimits.accept(PortSpace.TCP)).isEqualTo(196);
        assertThat(PrivateDataLimits.accept(PortSpace.UDP)).isEqualTo(136);
        assertThat(PrivateDataLimits.reject(PortSpace.TCP)).isEqualTo(148);
        assertThat(PrivateDataLimits.reject(PortSpace.UDP)).isEqualTo(136);

        assertThatCode(() -> PrivateDataLimits.checkConnect(PortSpace.TCP, 56)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkConnect(PortSpace.TCP, 57))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("private data of 57 bytes exceeds the 56-byte limit of rdma_connect on RDMA_PS_TCP");
        assertThatCode(() -> PrivateDataLimits.checkConnect(PortSpace.UDP, 180)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkConnect(PortSpace.UDP, 181))
                .hasMessage("private data of 181 bytes exceeds the 180-byte limit of rdma_connect on RDMA_PS_UDP");
        assertThatCode(() -> PrivateDataLimits.checkAccept(PortSpace.TCP, 196)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkAccept(PortSpace.TCP, 197))
                .hasMessage("private data of 197 bytes exceeds the 196-byte limit of rdma_accept on RDMA_PS_TCP");
        assertThatThrownBy(() -> PrivateDataLimits.checkAccept(PortSpace.UDP, 137))
                .hasMessage("private data of 137 bytes exceeds the 136-byte limit of rdma_accept on RDMA_PS_UDP");
        assertThatCode(() -> PrivateDataLimits.checkReject(PortSpace.TCP, 148)).doesNotThrowAnyException();
        assertThatThrownBy(() -> PrivateDataLimits.checkReject(PortSpace.TCP, 149))
                .hasMessage("private data of 149 bytes exceeds the 148-byte limit of rdma_reject on RDMA_PS_TCP");
        assertThatThrownBy(() -> PrivateDataLimits.checkConnect(PortSpace.TCP, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void connectLimitIsExactlyWhatFitsBehindTheCmaHeader() throws Exception {
        InetAddress a = InetAddress.getByName("127.0.0.2");
        Octets pd = CmaHeader.of(1, a, a).withUserData(Octets.zeros(PrivateDataLimits.CONNECT_RC));
        assertThat(pd.length()).isEqualTo(CmReq.PRIVATE_DATA_SIZE);
        Octets sidr = CmaHeader.of(1, a, a).withUserData(Octets.zeros(PrivateDataLimits.CONNECT_UD));
        assertThat(new CmSidrReq(1, 0xFFFF, 2, sidr).privateData().length()).isEqualTo(216);
        Octets tooLong = CmaHeader.of(1, a, a).withUserData(Octets.zeros(PrivateDataLimits.CONNECT_RC + 1));
        assertThatThrownBy(() -> SampleMessages.req(tooLong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("REQ private data of 93 bytes exceeds the 92-byte field");
    }

    @Test
    void recordsRejectValuesWiderThanTheirFields() {
        assertThatThrownBy(() -> new CmDreq(1, 2, 0x100_0000, Octets.EMPTY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("remote QPN");
        assertThatThrownBy(() -> new CmMra(1, 2, CmMessageKind.REQ, 32, Octets.EMPTY))
                .hasMessageContaining("service timeout");
        assertThatThrownBy(() -> new CmRej(1, 2, CmMessageKind.REQ, CmRejectReason.TIMEOUT, Octets.zeros(73),
                Octets.EMPTY)).hasMessageContaining("reject info");
        assertThatThrownBy(() -> new MadHeader(1, 7, 2, 0x103, 0, 0, 0, 0x10, 0)).hasMessageContaining("Method");
    }

    @Test
    void codeEnums() {
        assertThat(CmRejectReason.of(8)).isEqualTo(CmRejectReason.INVALID_SERVICE_ID);
        assertThat(CmRejectReason.of(28)).isEqualTo(CmRejectReason.CONSUMER_DEFINED);
        assertThat(CmRejectReason.of(35)).isEqualTo(CmRejectReason.VENDOR_OPTION_NOT_SUPPORTED);
        assertThat(CmRejectReason.of(34)).isNull();
        assertThat(CmRejectReason.of(0)).isNull();
        assertThat(CmRejectReason.values()).hasSize(34);
        assertThat(SidrStatus.of(2)).isEqualTo(SidrStatus.REJECT);
        assertThat(SidrStatus.of(6)).isNull();
        assertThat(ApStatus.of(5)).isEqualTo(ApStatus.IS_CURRENT);
        assertThat(ApStatus.of(13)).isEqualTo(ApStatus.INVALID_SL);
        assertThat(ApStatus.of(14)).isNull();
        assertThat(CmAttribute.of(0x0010)).isEqualTo(CmAttribute.REQ);
        assertThat(CmAttribute.of(0x001A)).isEqualTo(CmAttribute.APR);
        assertThat(CmAttribute.of(0x0001)).isEqualTo(CmAttribute.CLASS_PORT_INFO);
        assertThat(CmAttribute.of(0x001B)).isNull();
        assertThat(CmAttribute.of(0x000F)).isNull();
        assertThat(CmMessageKind.of(3)).isNull();
        assertThat(PortSpace.of(0x0111)).isEqualTo(PortSpace.UDP);
        assertThat(PortSpace.of(0x0107)).isNull();
    }

    @Test
    void octetsValueSemantics() {
        Octets a = Octets.of((byte) 1, (byte) 2);
        byte[] raw = {1, 2};
        Octets b = Octets.of(raw);
        raw[0] = 9; // copied on the way in
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.padTo(4)).isEqualTo(Octets.of((byte) 1, (byte) 2, (byte) 0, (byte) 0));
        assertThat(a.padTo(4).toString()).isEqualTo("[0102 +2 zero bytes]");
        assertThat(a.concat(a).length()).isEqualTo(4);
        assertThat(a.slice(1, 1)).isEqualTo(Octets.of((byte) 2));
        assertThatThrownBy(() -> a.asSegment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 0))
                .hasMessageContaining("read-only");
    }
}
