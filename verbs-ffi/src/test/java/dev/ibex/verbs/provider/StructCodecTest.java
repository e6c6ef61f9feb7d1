package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.verbs.ffi.struct.IbvAhAttr;
import dev.ibex.verbs.ffi.struct.IbvGid;
import dev.ibex.verbs.ffi.struct.IbvQpAttr;
import dev.ibex.verbs.ffi.struct.IbvSaPathRec;
import dev.ibex.verbs.ffi.struct.RdmaCmEvent;
import dev.ibex.verbs.ffi.struct.RdmaConnParam;
import dev.ibex.verbs.ffi.struct.RdmaUdParam;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The conversions between SPI values and the C structs, and the copy of CM events, on hand-built native memory. */
class StructCodecTest {
    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void close() {
        arena.close();
    }

    private static Gid gid(String ip) throws Exception {
        return Gid.of(InetAddress.getByName(ip));
    }

    @Test
    void addressVectorsRoundTrip() throws Exception {
        AhAttr a = new AhAttr(gid("169.254.77.1"), 0xABCDE, 3, 64, 0x20, 0x1234, 5, 1, 2, true, 1);
        MemorySegment s = arena.allocate(IbvAhAttr.LAYOUT);
        s.fill((byte) 0x77);
        AhAttrCodec.write(a, s);
        assertThat(AhAttrCodec.read(s)).isEqualTo(a);
        assertThat(s.get(ValueLayout.JAVA_BYTE, IbvAhAttr.OFFSET_GRH_DGID + 10)).isEqualTo((byte) 0xFF);
        assertThat(IbvGid.raw(IbvAhAttr.dgid(s))).containsExactly(a.dgid().raw());
    }

    @Test
    void qpAttributesRoundTripWithTheirMask() throws Exception {
        AhAttr primary = AhAttr.roce(gid("10.0.0.2"), 1, 1);
        AhAttr alternate = AhAttr.roce(gid("10.0.1.2"), 2, 1);
        QpAttr a = new QpAttr().state(QpState.RTR).pathMtu(Mtu.MTU_4096).destQpNum(0x11).rqPsn(0x123456)
                .maxDestRdAtomic(4).minRnrTimer(12).ahAttr(primary).altPath(alternate, 1, 14)
                .pathMigState(MigState.REARM).cap(new QpCap(8, 16, 2, 3, 64)).accessFlags(7).qkey(0x01234567)
                .timeout(14).retryCnt(7).rnrRetry(6).sqPsn(0xABCDEF).maxRdAtomic(2).pkeyIndex(0).portNum(1);
        MemorySegment s = arena.allocate(IbvQpAttr.LAYOUT);
        QpAttrCodec.write(a, s);
        assertThat(IbvQpAttr.qpState(s)).isEqualTo(2);
        assertThat(IbvQpAttr.pathMtu(s)).isEqualTo(5);
        assertThat(IbvQpAttr.pathMigState(s)).isEqualTo(1);

        QpAttr b = QpAttrCodec.read(s, a.mask());
        assertThat(b.mask()).isEqualTo(a.mask());
        assertThat(b.state()).isEqualTo(QpState.RTR);
        assertThat(b.pathMtu()).isEqualTo(Mtu.MTU_4096);
        assertThat(b.destQpNum()).isEqualTo(0x11);
        assertThat(b.rqPsn()).isEqualTo(0x123456);
        assertThat(b.sqPsn()).isEqualTo(0xABCDEF);
        assertThat(b.maxDestRdAtomic()).isEqualTo(4);
        assertThat(b.maxRdAtomic()).isEqualTo(2);
        assertThat(b.minRnrTimer()).isEqualTo(12);
        assertThat(b.ahAttr()).isEqualTo(primary);
        assertThat(b.altAhAttr()).isEqualTo(alternate);
        assertThat(b.altPortNum()).isEqualTo(1);
        assertThat(b.altTimeout()).isEqualTo(14);
        assertThat(b.pathMigState()).isEqualTo(MigState.REARM);
        assertThat(b.cap()).isEqualTo(new QpCap(8, 16, 2, 3, 64));
        assertThat(b.accessFlags()).isEqualTo(7);
        assertThat(b.qkey()).isEqualTo(0x01234567);
        assertThat(b.timeout()).isEqualTo(14);
        assertThat(b.retryCnt()).isEqualTo(7);
        assertThat(b.rnrRetry()).isEqualTo(6);
        assertThat(b.portNum()).isEqualTo(1);
    }

    @Test
    void anUnknownMtuInAQueryKeepsTheDefault() {
        MemorySegment s = arena.allocate(IbvQpAttr.LAYOUT);
        QpAttr b = QpAttrCodec.read(s, QpAttr.STATE);
        assertThat(b.state()).isEqualTo(QpState.RESET);
        assertThat(b.mask()).isEqualTo(QpAttr.STATE);
        assertThat(b.pathMtu()).isEqualTo(Mtu.MTU_1024);
    }

    @Test
    void connectionParametersAreWrittenWithTheirPrivateData() {
        byte[] data = {1, 2, 3, 4, 5};
        ConnParam p = new ConnParam(data, 3, 2, true, 5, 6, false, 0);
        MemorySegment s = ConnParamCodec.write(p, arena);
        assertThat(RdmaConnParam.privateDataLen(s)).isEqualTo(5);
        assertThat(RdmaConnParam.privateDataBytes(s).toArray(ValueLayout.JAVA_BYTE)).containsExactly(data);
        assertThat(RdmaConnParam.responderResources(s)).isEqualTo(3);
        assertThat(RdmaConnParam.initiatorDepth(s)).isEqualTo(2);
        assertThat(RdmaConnParam.flowControl(s)).isEqualTo(1);
        assertThat(RdmaConnParam.retryCount(s)).isEqualTo(5);
        assertThat(RdmaConnParam.rnrRetryCount(s)).isEqualTo(6);
        ConnParam back = ConnParamCodec.read(s);
        assertThat(back.privateData()).containsExactly(data);
        assertThat(back.responderResources()).isEqualTo(3);
        assertThat(back.flowControl()).isTrue();

        MemorySegment none = ConnParamCodec.write(ConnParam.DEFAULT, arena);
        assertThat(RdmaConnParam.privateData(none).address()).isZero();
        assertThat(ConnParamCodec.read(none).privateData()).isEmpty();
    }

    @Test
    void pathRecordsAreReadFromTheRoute() throws Exception {
        MemorySegment p = arena.allocate(IbvSaPathRec.LAYOUT);
        IbvGid.raw(IbvSaPathRec.sgid(p), gid("169.254.77.1").raw());
        IbvGid.raw(IbvSaPathRec.dgid(p), gid("169.254.77.2").raw());
        p.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), IbvSaPathRec.OFFSET_FLOW_LABEL, 0x12345);
        p.set(ValueLayout.JAVA_BYTE, IbvSaPathRec.OFFSET_HOP_LIMIT, (byte) 64);
        p.set(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), IbvSaPathRec.OFFSET_PKEY, (short) 0xFFFF);
        p.set(ValueLayout.JAVA_BYTE, IbvSaPathRec.OFFSET_MTU, (byte) 3);
        p.set(ValueLayout.JAVA_BYTE, IbvSaPathRec.OFFSET_PACKET_LIFE_TIME, (byte) 16);
        PathRecord r = PathRecordCodec.read(p);
        assertThat(r.sgid()).isEqualTo(gid("169.254.77.1"));
        assertThat(r.dgid()).isEqualTo(gid("169.254.77.2"));
        assertThat(r.flowLabel()).isEqualTo(0x12345);
        assertThat(r.hopLimit()).isEqualTo(64);
        assertThat(r.pkey()).isEqualTo(0xFFFF);
        assertThat(r.mtu()).isEqualTo(Mtu.MTU_1024);
        assertThat(r.packetLifeTime()).isEqualTo(16);
    }

    // ---- CM events ----

    private static CmId stubId(PortSpace ps) {
        return (CmId) Proxy.newProxyInstance(CmId.class.getClassLoader(), new Class<?>[] {CmId.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "portSpace" -> ps;
                    case "toString" -> "stub " + ps;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private MemorySegment event(CmEventType type, int status) {
        MemorySegment e = arena.allocate(RdmaCmEvent.LAYOUT);
        e.set(ValueLayout.JAVA_INT, RdmaCmEvent.OFFSET_EVENT, type.code());
        e.set(ValueLayout.JAVA_INT, RdmaCmEvent.OFFSET_STATUS, status);
        return e;
    }

    private MemorySegment bytes(int n, int first) {
        MemorySegment d = arena.allocate(n);
        for (int i = 0; i < n; i++) {
            d.set(ValueLayout.JAVA_BYTE, i, (byte) (first + i));
        }
        return d;
    }

    @Test
    void aRejectCarriesItsReasonAndAllItsPrivateData() {
        MemorySegment e = event(CmEventType.REJECTED, 28);
        MemorySegment conn = RdmaCmEvent.conn(e);
        RdmaConnParam.privateData(conn, bytes(148, 1));
        RdmaConnParam.privateDataLen(conn, 148);
        CmId id = stubId(PortSpace.TCP);
        CmEvent c = NativeEventChannel.copy(e, CmEventType.REJECTED, 28, id, null);
        assertThat(c.type()).isEqualTo(CmEventType.REJECTED);
        assertThat(c.status()).isEqualTo(28);
        assertThat(c.id()).isSameAs(id);
        assertThat(c.privateData()).hasSize(148);
        assertThat(c.privateData()[0]).isEqualTo((byte) 1);
        assertThat(c.privateData()[147]).isEqualTo((byte) 148);
        assertThat(c.conn()).isNotNull();
        assertThat(c.ud()).isNull();
        // the record owns a copy: the native buffer can go with the ack
        RdmaConnParam.privateData(conn).reinterpret(148).fill((byte) 0);
        assertThat(c.privateData()[0]).isEqualTo((byte) 1);
    }

    @Test
    void aConnectRequestCarriesTheConnectionParametersAndTheListener() {
        MemorySegment e = event(CmEventType.CONNECT_REQUEST, 0);
        MemorySegment conn = RdmaCmEvent.conn(e);
        RdmaConnParam.privateData(conn, bytes(56, 10));
        RdmaConnParam.privateDataLen(conn, 56);
        RdmaConnParam.responderResources(conn, 4);
        RdmaConnParam.initiatorDepth(conn, 2);
        RdmaConnParam.retryCount(conn, 7);
        RdmaConnParam.rnrRetryCount(conn, 7);
        RdmaConnParam.qpNum(conn, 0x17);
        CmId id = stubId(PortSpace.TCP);
        CmId listener = stubId(PortSpace.TCP);
        CmEvent c = NativeEventChannel.copy(e, CmEventType.CONNECT_REQUEST, 0, id, listener);
        assertThat(c.listenId()).isSameAs(listener);
        assertThat(c.privateData()).hasSize(56).startsWith((byte) 10);
        assertThat(c.conn().responderResources()).isEqualTo(4);
        assertThat(c.conn().initiatorDepth()).isEqualTo(2);
        assertThat(c.conn().qpNum()).isEqualTo(0x17);
        assertThat(c.conn().privateData()).isEqualTo(c.privateData());
    }

    @Test
    void udEventsCarryTheRemoteQpAndItsAddressVector() throws Exception {
        MemorySegment e = event(CmEventType.ESTABLISHED, 0);
        MemorySegment ud = RdmaCmEvent.ud(e);
        AhAttr ah = AhAttr.roce(gid("169.254.77.1"), 0, 1);
        AhAttrCodec.write(ah, RdmaUdParam.ahAttr(ud));
        ud.set(ValueLayout.JAVA_INT, RdmaUdParam.OFFSET_QP_NUM, 0x55);
        ud.set(ValueLayout.JAVA_INT, RdmaUdParam.OFFSET_QKEY, 0x01234567);
        ud.set(ValueLayout.ADDRESS, RdmaUdParam.OFFSET_PRIVATE_DATA, bytes(136, 0));
        ud.set(ValueLayout.JAVA_BYTE, RdmaUdParam.OFFSET_PRIVATE_DATA_LEN, (byte) 136);
        CmEvent c = NativeEventChannel.copy(e, CmEventType.ESTABLISHED, 0, stubId(PortSpace.UDP), null);
        assertThat(c.conn()).isNull();
        assertThat(c.ud().qpNum()).isEqualTo(0x55);
        assertThat(c.ud().qkey()).isEqualTo(0x01234567);
        assertThat(c.ud().ahAttr()).isEqualTo(ah);
        assertThat(c.privateData()).hasSize(136);
    }

    @Test
    void multicastEventsNeverReadTheirContextPointerAsData() {
        MemorySegment e = event(CmEventType.MULTICAST_JOIN, 0);
        MemorySegment ud = RdmaCmEvent.ud(e);
        ud.set(ValueLayout.ADDRESS, RdmaUdParam.OFFSET_PRIVATE_DATA, MemorySegment.ofAddress(0xDEAD_BEEFL));
        ud.set(ValueLayout.JAVA_BYTE, RdmaUdParam.OFFSET_PRIVATE_DATA_LEN, (byte) 0x40);
        ud.set(ValueLayout.JAVA_INT, RdmaUdParam.OFFSET_QP_NUM, 0xFFFFFF);
        CmEvent c = NativeEventChannel.copy(e, CmEventType.MULTICAST_JOIN, 0, stubId(PortSpace.UDP), null);
        assertThat(c.privateData()).isEmpty();
        assertThat(c.ud().qpNum()).isEqualTo(0xFFFFFF);
        assertThat(c.context()).as("a stub id has no memberships").isNull();
    }

    @Test
    void eventsWithoutParametersCopyNothing() {
        MemorySegment e = event(CmEventType.ADDR_ERROR, -110);
        CmEvent c = NativeEventChannel.copy(e, CmEventType.ADDR_ERROR, -110, stubId(PortSpace.TCP), null);
        assertThat(c.status()).isEqualTo(-110);
        assertThat(c.privateData()).isEmpty();
        assertThat(c.conn()).isNull();
        assertThat(c.ud()).isNull();
    }
}
