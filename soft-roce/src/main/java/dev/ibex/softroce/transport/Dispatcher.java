package dev.ibex.softroce.transport;

import dev.ibex.softroce.wire.Bth;
import dev.ibex.cm.spi.QpType;
import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * The receive side of one device link (rxe {@code rxe_recv.c}): validates each datagram (structure, TVer, ICRC
 * under this stack's convention, P_Key 0xFFFF), then hands it to QP1 (MADs) or to the QP its BTH names. Runs on
 * the link's receive thread; owns the reusable packet flyweight, so nothing is allocated per packet.
 */
public final class Dispatcher implements Link.Handler {
    private final SoftDevice device;
    private final Gsi gsi;
    private final RocePacket packet = new RocePacket();
    private final LongAdder malformed = new LongAdder();
    private final LongAdder unknownQp = new LongAdder();
    private final LongAdder offPath = new LongAdder();
    private final LongAdder wrongTransport = new LongAdder();
    private static final ThreadLocal<Boolean> RECEIVE_THREAD = ThreadLocal.withInitial(() -> Boolean.FALSE);
    private Thread lastThread;

    public Dispatcher(SoftDevice device, Gsi gsi) {
        this.device = device;
        this.gsi = gsi;
    }

    /**
     * Whether the calling thread delivers received packets (a link's receive thread): such a thread must not be
     * kept busy by long transmissions, or nothing is received meanwhile; it hands them to the {@link WorkQueue}.
     */
    static boolean onReceiveThread() {
        return RECEIVE_THREAD.get();
    }

    @Override
    public void onPacket(MemorySegment segment, long offset, int length, int srcIp, int srcPort, int dstIp) {
        Thread t = Thread.currentThread();
        if (t != lastThread) {
            RECEIVE_THREAD.set(Boolean.TRUE);
            lastThread = t;
        }
        try {
            packet.parseIpv4(segment, offset, length, srcIp, dstIp, srcPort, device.config().udpPort());
        } catch (MalformedPacketException e) {
            malformed.increment();
            return;
        }
        if (packet.pKey() != Bth.DEFAULT_PKEY) {
            malformed.increment();
            return;
        }
        if (!device.accessGuard().admits(srcIp)) {
            return; // a peer that kept guessing keys is cut off for a while (counted by the guard)
        }
        int dqp = packet.destQp();
        if (dqp == Bth.GSI_QPN) {
            if (!gsi.deliver(packet, srcIp, srcPort, dstIp)) {
                offPath.increment();
            }
            return;
        }
        if (dqp == Bth.MULTICAST_QPN) {
            // every UD QP of this device attached to the group gets its own copy (Q_Key checked by each)
            SoftQueuePair[] members = device.multicastMembers(dstIp);
            for (SoftQueuePair qp : members) {
                qp.deliver(packet, srcIp, srcPort, dstIp);
            }
            if (members.length == 0) {
                unknownQp.increment();
            }
            return;
        }
        if (dqp == 0) {
            unknownQp.increment(); // QP0 does not exist on RoCE
            return;
        }
        SoftQueuePair qp = device.queuePair(dqp);
        if (qp == null) {
            unknownQp.increment();
            return;
        }
        if ((packet.opcode().transport() == Opcode.Transport.UD) != (qp.type() == QpType.UD)) {
            wrongTransport.increment(); // rxe check_type_state: dropped, and here counted, before any path check
            return;
        }
        if (!qp.deliver(packet, srcIp, srcPort, dstIp)) {
            offPath.increment();
        }
    }

    /** Datagrams dropped because they were not valid RoCEv2 packets (or failed the ICRC). */
    public long malformed() {
        return malformed.sum();
    }

    /** RC packets and MADs that did not come from their path's address and UDP port. */
    public long offPath() {
        return offPath.sum();
    }

    /** Packets of another service type than the QP they name (UD to RC, RC to UD). */
    public long wrongTransport() {
        return wrongTransport.sum();
    }

    /** Packets for QPs that do not exist. */
    public long unknownQp() {
        return unknownQp.sum();
    }
}
