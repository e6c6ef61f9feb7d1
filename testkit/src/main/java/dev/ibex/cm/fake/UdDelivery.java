package dev.ibex.cm.fake;

import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A UD QP's send, delivered at post time: to the QP of that number on the address handle's device, or to every
 * other QP attached to the multicast group ({@link UdParam#MULTICAST_QPN}), each with a matching Q_Key, ready,
 * and with a receive posted — the rest drop it silently, as UD does. Each receive gets the 40-byte GRH rxe puts in
 * front of the payload ({@link #writeGrh}). Lock held.
 */
final class UdDelivery {
    private final FakeQp qp;

    UdDelivery(FakeQp qp) {
        this.qp = qp;
    }

    void send(FakeQp.SendWr wr) {
        PostedSends sends = qp.sends;
        byte[] data = qp.memory.data(wr);
        if (data == null) {
            sends.fail(wr, WcStatus.LOC_PROT_ERR);
            return;
        }
        if (data.length > 1024) {
            sends.complete(wr, WcStatus.LOC_LEN_ERR, true);
            return;
        }
        FakeFabric fabric = qp.fabric;
        FakeAh ah = fabric.ahs.get(wr.ah());
        if (ah == null) {
            sends.complete(wr, WcStatus.LOC_QP_OP_ERR, true);
            return;
        }
        Gid dgid = ah.attr().dgid();
        List<FakeQp> targets = new ArrayList<>();
        if (wr.remoteQpn() == UdParam.MULTICAST_QPN) {
            Set<FakeQp> members = fabric.groups.get(dgid);
            if (members != null) {
                for (FakeQp m : members) {
                    if (m != qp) {
                        targets.add(m);
                    }
                }
            }
        } else {
            FakeQp t = fabric.qps.get(wr.remoteQpn());
            if (t != null && t.type == QpType.UD && t.pd.device().gid().equals(dgid)) {
                targets.add(t);
            }
        }
        for (FakeQp t : targets) {
            if (t.closed || t.qkey != wr.remoteQkey() || (t.state != QpState.RTS && t.state != QpState.RTR)) {
                continue;
            }
            FakeQp.Recv r = t.takeRecv();
            if (r == null) {
                continue; // UD drops what finds no receive
            }
            byte[] grh = new byte[VerbsAbi.GRH_SIZE + data.length];
            writeGrh(grh, qp.pd.device().gid(), dgid, data.length);
            System.arraycopy(data, 0, grh, VerbsAbi.GRH_SIZE, data.length);
            if (!t.memory.scatter(r, grh, 0)) {
                t.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, t.qpNum, 0, 0, 0, null,
                        -1));
                continue;
            }
            boolean imm = wr.opcode() == WrOpcode.SEND_WITH_IMM;
            t.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.SUCCESS, WcOpcode.RECV, grh.length, t.qpNum,
                    WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), wr.imm(), qp.qpNum, null, -1));
        }
        sends.complete(wr, WcStatus.SUCCESS, false);
    }

    /**
     * What rxe puts in front of a UD receive: over IPv4 the IPv4 header in bytes 20..39 (the first 20 undefined),
     * otherwise an IPv6 header with the GIDs at 8 and 24.
     */
    static void writeGrh(byte[] grh, Gid sgid, Gid dgid, int payload) {
        if (sgid.isIpv4Mapped() && dgid.isIpv4Mapped()) {
            int o = 20;
            int total = 20 + 8 + 12 + 8 + payload + 4; // IPv4 + UDP + BTH + DETH + payload + ICRC
            grh[o] = 0x45;
            grh[o + 2] = (byte) (total >> 8);
            grh[o + 3] = (byte) total;
            grh[o + 6] = 0x40; // don't fragment
            grh[o + 8] = 64;
            grh[o + 9] = 17; // UDP
            for (int i = 0; i < 4; i++) {
                grh[o + 12 + i] = sgid.byteAt(12 + i);
                grh[o + 16 + i] = dgid.byteAt(12 + i);
            }
            int sum = 0;
            for (int i = 0; i < 20; i += 2) {
                sum += ((grh[o + i] & 0xFF) << 8) | (grh[o + i + 1] & 0xFF);
            }
            while ((sum >> 16) != 0) {
                sum = (sum & 0xFFFF) + (sum >> 16);
            }
            int check = ~sum & 0xFFFF;
            grh[o + 10] = (byte) (check >> 8);
            grh[o + 11] = (byte) check;
        } else {
            grh[0] = 0x60;
            grh[4] = (byte) (payload >> 8);
            grh[5] = (byte) payload;
            grh[6] = 0x1B; // next header: IB BTH
            grh[7] = 64;
            for (int i = 0; i < 16; i++) {
                grh[8 + i] = sgid.byteAt(i);
                grh[24 + i] = dgid.byteAt(i);
            }
        }
    }
}
