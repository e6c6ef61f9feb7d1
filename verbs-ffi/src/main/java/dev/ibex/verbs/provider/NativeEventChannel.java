package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.verbs.ffi.LibC;
import dev.ibex.verbs.ffi.RdmaCm;
import dev.ibex.verbs.ffi.struct.RdmaCmEvent;
import dev.ibex.verbs.ffi.struct.RdmaCmId;
import dev.ibex.verbs.ffi.struct.RdmaConnParam;
import dev.ibex.verbs.ffi.struct.RdmaEventChannel;
import dev.ibex.verbs.ffi.struct.RdmaUdParam;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CM event channel ({@code struct rdma_event_channel}) whose fd is non-blocking.
 *
 * <p>{@link #poll()} follows the ack discipline that keeps {@code rdma_destroy_id} and {@code rdma_migrate_id}
 * from hanging: {@code rdma_get_cm_event} (EAGAIN → {@code null}), copy everything the event carries into a
 * {@link CmEvent} (type, status, private data up to {@code private_data_len}, connection or UD parameters with
 * the address vector, the join context of multicast events, and for CONNECT_REQUEST the new id wrapped as a new
 * {@link NativeCmId} on this channel), then {@code rdma_ack_cm_event} at once, before the record is returned.
 * Events of ids that are already closed are acknowledged and skipped; the new id of a request whose listener is
 * gone is destroyed.
 */
final class NativeEventChannel extends NativeResource implements EventChannel, FdSource {
    private static final Logger LOG = LoggerFactory.getLogger(NativeEventChannel.class);
    private static final int KNOWN_TYPES = CmEventType.values().length;

    private final MemorySegment channel;
    private final int fd;
    private final Set<NativeCmId> ids = ConcurrentHashMap.newKeySet();
    /** The new id of a CONNECT_REQUEST nobody can own (listener gone), destroyed after its event is acked. */
    private MemorySegment orphan;

    private NativeEventChannel(NativeFabric fabric, MemorySegment channel) {
        super(fabric);
        this.channel = channel;
        this.fd = RdmaEventChannel.fd(channel);
        tracked();
    }

    static NativeEventChannel create(NativeFabric fabric) {
        MemorySegment ch = RdmaCm.createEventChannel();
        try {
            LibC.setNonBlocking(RdmaEventChannel.fd(ch));
        } catch (RuntimeException e) {
            RdmaCm.destroyEventChannel(ch);
            throw e;
        }
        return new NativeEventChannel(fabric, ch);
    }

    MemorySegment segment() {
        return channel;
    }

    void attach(NativeCmId id) {
        ids.add(id);
    }

    void detach(NativeCmId id) {
        ids.remove(id);
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.EVENT_CHANNEL;
    }

    @Override
    String describe() {
        return "event channel fd " + fd;
    }

    @Override
    public int pollFd() {
        return fd;
    }

    @Override
    public CmId createId(PortSpace portSpace, Object context) {
        ensureOpen();
        if (portSpace == null) {
            throw new IllegalArgumentException("portSpace is required");
        }
        return NativeCmId.create(this, portSpace, context);
    }

    @Override
    public CmEvent poll() {
        ensureOpen();
        while (true) {
            MemorySegment event = RdmaCm.getCmEvent(channel);
            if (event.address() == 0) {
                return null;
            }
            CmEvent copy;
            try {
                copy = copy(event);
            } finally {
                RdmaCm.ackCmEvent(event);
            }
            if (orphan != null) {
                MemorySegment id = orphan;
                orphan = null;
                RdmaCm.destroyId(id);
            }
            if (copy != null) {
                if (copy.type() == CmEventType.DEVICE_REMOVAL && copy.id() instanceof NativeCmId n) {
                    NativeDeviceContext d = n.nativeDevice();
                    if (d != null) {
                        d.markRemoved(); // rxe raises no DEVICE_FATAL: the CM's event is the only word of it
                    }
                }
                return copy;
            }
        }
    }

    private NativeCmId lookup(MemorySegment id) {
        if (id.address() == 0) {
            return null;
        }
        return fabric.handles().lookup(id.get(ValueLayout.JAVA_LONG, RdmaCmId.OFFSET_CONTEXT), NativeCmId.class);
    }

    private CmEvent copy(MemorySegment event) {
        int code = RdmaCmEvent.event(event);
        if (code < 0 || code >= KNOWN_TYPES) {
            LOG.debug("skipping librdmacm-internal CM event {}", code);
            return null;
        }
        CmEventType type = CmEventType.ofCode(code);
        int status = RdmaCmEvent.status(event);
        MemorySegment idSegment = RdmaCmEvent.id(event);
        NativeCmId id;
        NativeCmId listener = null;
        if (type == CmEventType.CONNECT_REQUEST) {
            listener = lookup(RdmaCmEvent.listenId(event));
            if (listener == null) {
                LOG.debug("connect request for a listener that is closed; destroying the new id");
                orphan = idSegment;
                return null;
            }
            id = NativeCmId.fromRequest(this, idSegment, listener.portSpace());
        } else {
            id = lookup(idSegment);
            if (id == null) {
                LOG.debug("skipping {} for an id that is closed", type);
                return null;
            }
        }
        return copy(event, type, status, id, listener);
    }

    /** The record for an event whose id is known; reads only the parameters that are valid for it. */
    static CmEvent copy(MemorySegment event, CmEventType type, int status, CmId id, CmId listener) {
        MemorySegment conn = RdmaCmEvent.conn(event);
        MemorySegment udSeg = RdmaCmEvent.ud(event);
        switch (type) {
            case MULTICAST_JOIN, MULTICAST_ERROR -> {
                // param.ud.private_data is the join's context pointer (our handle), not data
                long handle = RdmaUdParam.privateData(udSeg).address();
                Membership m = id instanceof NativeCmId n
                        ? n.fabric.handles().lookup(handle, Membership.class) : null;
                UdParam ud = type == CmEventType.MULTICAST_JOIN ? ConnParamCodec.readUd(udSeg, false) : null;
                return new CmEvent(type, id, listener, status, null, null, ud, m == null ? null : m.context());
            }
            default -> {
                if (PrivateDataLimits.isDatagram(id.portSpace())) {
                    if (type == CmEventType.CONNECT_REQUEST || type == CmEventType.ESTABLISHED) {
                        UdParam ud = ConnParamCodec.readUd(udSeg, true);
                        return new CmEvent(type, id, listener, status, ud.privateData(), null, ud, null);
                    }
                    return new CmEvent(type, id, listener, status,
                            ConnParamCodec.copy(RdmaUdParam.privateDataBytes(udSeg)), null, null, null);
                }
                if (type == CmEventType.CONNECT_REQUEST || type == CmEventType.CONNECT_RESPONSE
                        || type == CmEventType.ESTABLISHED || type == CmEventType.REJECTED) {
                    ConnParam c = ConnParamCodec.read(conn);
                    return new CmEvent(type, id, listener, status, c.privateData(), c, null, null);
                }
                return new CmEvent(type, id, listener, status,
                        ConnParamCodec.copy(RdmaConnParam.privateDataBytes(conn)), null, null, null);
            }
        }
    }

    @Override
    void destroy() {
        List<NativeCmId> open = new ArrayList<>(ids);
        for (NativeCmId id : open) {
            id.close();
        }
        RdmaCm.destroyEventChannel(channel);
    }
}
