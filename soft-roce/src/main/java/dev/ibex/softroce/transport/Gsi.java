package dev.ibex.softroce.transport;

import dev.ibex.softroce.wire.Bth;
import dev.ibex.softroce.wire.Deth;
import dev.ibex.softroce.wire.Ipv4;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's QP1 (the General Service Interface) as a {@link MadPort}: MADs go out as UD SEND_ONLY to QP 1 with
 * Q_Key 0x80010000 and source QP 1; what arrives at QP 1 with that Q_Key and exactly one 256-byte MAD goes to the
 * listeners. Sending is serialised (MADs are rare); receiving runs on the link's thread.
 */
public final class Gsi implements MadPort {
    private static final Logger LOG = LoggerFactory.getLogger(Gsi.class);

    private final SoftDevice device;
    private final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();
    private final PacketBuilder builder = new PacketBuilder();
    private final ByteBuffer txBuffer = ByteBuffer.allocateDirect(512);
    private final MemorySegment tx = MemorySegment.ofBuffer(txBuffer);
    private int psn;

    public Gsi(SoftDevice device) {
        this.device = device;
    }

    @Override
    public void send(int localIp, int remoteIp, MemorySegment mad, long offset) {
        Link link = device.linkOf(localIp);
        if (link == null) {
            throw new IllegalArgumentException(Ipv4.toString(localIp) + " is not an address of " + device.name());
        }
        if (offset < 0 || mad.byteSize() - offset < MAD_SIZE) {
            throw new IllegalArgumentException("a MAD is " + MAD_SIZE + " bytes; the segment holds "
                    + (mad.byteSize() - offset) + " from offset " + offset);
        }
        InetSocketAddress dst = new InetSocketAddress(Ipv4.toInetAddress(remoteIp), link.port());
        synchronized (this) {
            builder.begin(tx, 0, Opcode.UD_SEND_ONLY).destQp(Bth.GSI_QPN).psn(psn)
                    .deth(Deth.GSI_QKEY, Bth.GSI_QPN);
            psn = (psn + 1) & 0xFFFFFF;
            MemorySegment.copy(mad, offset, tx, builder.payloadOffset(), MAD_SIZE);
            int len = builder.payloadLength(MAD_SIZE).finishIpv4(localIp, remoteIp, link.port(), link.port());
            txBuffer.clear().limit(len);
            link.send(txBuffer, remoteIp, dst);
        }
    }

    @Override
    public void subscribe(Listener listener) {
        listeners.add(listener);
    }

    @Override
    public void unsubscribe(Listener listener) {
        listeners.remove(listener);
    }

    /**
     * A packet for QP 1 arrived (receive thread).
     *
     * @return false when it did not come from the fabric's UDP port (every soft-roce QP1 sends from it): dropped
     */
    boolean deliver(RocePacket pkt, int srcIp, int srcPort, int dstIp) {
        if (srcPort != device.config().udpPort()) {
            return false;
        }
        if (pkt.opcode() != Opcode.UD_SEND_ONLY || pkt.dethQKey() != Deth.GSI_QKEY
                || pkt.payloadLength() != MAD_SIZE) {
            return true; // not a MAD (or a Q_Key violation): dropped like rxe's check_keys
        }
        for (Listener l : listeners) {
            try {
                l.onMad(pkt.segment(), pkt.payloadOffset(), dstIp, srcIp);
            } catch (RuntimeException e) {
                LOG.warn("MAD listener failed", e);
            }
        }
        return true;
    }
}
