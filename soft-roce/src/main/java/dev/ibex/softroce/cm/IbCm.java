package dev.ibex.softroce.cm;

import dev.ibex.softroce.mad.CmApr;
import dev.ibex.softroce.mad.CmDrep;
import dev.ibex.softroce.mad.CmDreq;
import dev.ibex.softroce.mad.CmLap;
import dev.ibex.softroce.mad.CmMad;
import dev.ibex.softroce.mad.CmMessage;
import dev.ibex.softroce.mad.CmMessageKind;
import dev.ibex.softroce.mad.CmMra;
import dev.ibex.softroce.mad.CmRej;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.CmRep;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmRtu;
import dev.ibex.softroce.mad.CmSidrRep;
import dev.ibex.softroce.mad.CmSidrReq;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.SidrStatus;
import dev.ibex.softroce.wire.MalformedPacketException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IB communication manager of one soft fabric ({@code drivers/infiniband/core/cm.c}): allocates
 * communication IDs, keeps the listen, remote-ID, remote-QPN and SIDR tables, matches every received CM MAD
 * to an id (or answers it statelessly: REJ 8 without a listener, REJ 10 for a stale connection, DREP for an
 * unknown DREQ, SIDR_REP UNSUPPORTED without a listener) and drives {@link IbCmId}s through
 * {@link IbCmTable}.
 *
 * <p>Threading: everything runs under one lock shared with the RDMA CM layer; MADs arrive on the provider's
 * I/O threads, timers on the timer's thread, calls on the consumers' threads. Handlers run with the lock
 * held and may call back into the CM (the lock is reentrant). {@link CmPort#send} never re-enters.
 */
public final class IbCm {
    private static final Logger LOG = LoggerFactory.getLogger(IbCm.class);

    final ReentrantLock lock;
    final CmTimer timer;
    final CmTimings timings;
    private final Random random;
    private int nextHiTid = 1;
    private long offPath;
    private final Map<Integer, IbCmId> localIds = new HashMap<>();
    private final Map<ListenKey, IbCmId> listeners = new HashMap<>();
    private final Map<RemoteKey, IbCmId> remoteIds = new HashMap<>();
    private final Map<RemoteKey, IbCmId> remoteQpns = new HashMap<>();
    private final Map<SidrKey, IbCmId> remoteSidr = new HashMap<>();
    private final Map<CmPort, Integer> hiTids = new IdentityHashMap<>();
    private final Map<CmPort, Boolean> removedPorts = new IdentityHashMap<>();

    /** A listen registration: a device ({@link CmPort#deviceKey()}), or {@code null} for all, and a service ID. */
    record ListenKey(Object device, long serviceId) {}

    /** A remote communication ID or QPN qualified by the remote CA GUID. */
    record RemoteKey(int value, long caGuid) {}

    /** A SIDR request: its request ID and where it came from. */
    record SidrKey(int requestId, InetAddress source) {}

    /**
     * @param lock the lock every CM operation runs under (shared with the RDMA CM layer)
     * @param random source of comm IDs and PSNs (a {@link java.security.SecureRandom})
     */
    public IbCm(CmTimer timer, CmTimings timings, ReentrantLock lock, Random random) {
        this.timer = timer;
        this.timings = timings;
        this.lock = lock;
        this.random = random;
    }

    public CmTimings timings() {
        return timings;
    }

    /** A random 24-bit starting PSN. */
    public int randomPsn() {
        return random.nextInt(1 << 24);
    }

    /** {@code ib_create_cm_id}. */
    public IbCmId createId(IbCmHandler handler, Object context) {
        return locked(() -> newId(handler, context));
    }

    private IbCmId newId(IbCmHandler handler, Object context) {
        int id;
        do {
            // 32 random bits, not the kernel's counter XOR one random operand (cm_alloc_id_priv): knowing one id
            // must not tell a peer the next, or it could forge the DREQ or REJ of a connection it is not part of
            id = random.nextInt();
        } while (id == 0 || localIds.containsKey(id));
        IbCmId cmId = new IbCmId(this, id, handler, context);
        localIds.put(id, cmId);
        return cmId;
    }

    /** Ids alive (for leak checks): created and not destroyed. */
    public int liveIds() {
        return locked(localIds::size);
    }

    /** Live ids per state (for diagnostics and tests). */
    public Map<IbCmState, Integer> statesSnapshot() {
        return locked(() -> {
            Map<IbCmState, Integer> m = new java.util.EnumMap<>(IbCmState.class);
            for (IbCmId id : localIds.values()) {
                m.merge(id.state(), 1, Integer::sum);
            }
            return m;
        });
    }

    /**
     * The port went away (device removal): nothing is sent through it any more and ids using it stop retrying;
     * they stay until their consumer destroys them.
     */
    public void portRemoved(CmPort port) {
        locked(() -> {
            removedPorts.put(port, Boolean.TRUE);
            for (IbCmId id : new ArrayList<>(localIds.values())) {
                if (id.port == port) {
                    id.timers.stop();
                }
            }
            listeners.keySet().removeIf(k -> k.device() == port.deviceKey());
        });
    }

    // ------------------------------------------------------------------------------------------------ receive

    /** A MAD received on {@code port}'s QP1 from {@code source}: 256 bytes at {@code offset} of {@code mad}. */
    public void receive(CmPort port, InetAddress source, MemorySegment mad, long offset) {
        CmMad decoded;
        try {
            decoded = CmMad.decode(mad, offset);
        } catch (MalformedPacketException | IllegalArgumentException e) {
            LOG.debug("dropping CM MAD from {}: {}", source, e.getMessage());
            return;
        }
        receive(port, source, decoded);
    }

    /** A decoded CM MAD received on {@code port} from {@code source}. */
    public void receive(CmPort port, InetAddress source, CmMad mad) {
        locked(() -> {
            if (removedPorts.containsKey(port)) {
                return;
            }
            long tid = mad.transactionId();
            Stimulus s = new Stimulus(mad.message(), tid, port, source, null);
            switch (mad.message()) {
                case CmReq req -> onReq(port, source, tid, req, s);
                case CmMra mra -> {
                    IbCmId id = mra.messageMraed() == CmMessageKind.REQ ? byLocal(mra.remoteCommId(), 0)
                            : byLocal(mra.remoteCommId(), mra.localCommId());
                    IbCmInput in = switch (mra.messageMraed()) {
                        case REQ -> IbCmInput.RECV_MRA_REQ;
                        case REP -> IbCmInput.RECV_MRA_REP;
                        case OTHER -> IbCmInput.RECV_MRA_OTHER;
                    };
                    apply(id, in, s);
                }
                case CmRej rej -> apply(rejected(rej), rej.reason() == CmRejectReason.STALE_CONN
                        ? IbCmInput.RECV_REJ_STALE : IbCmInput.RECV_REJ, s);
                case CmRep rep -> onRep(port, source, tid, rep, s);
                case CmRtu rtu -> apply(byLocal(rtu.remoteCommId(), rtu.localCommId()), IbCmInput.RECV_RTU, s);
                case CmDreq dreq -> {
                    IbCmId id = byLocal(dreq.remoteCommId(), dreq.localCommId());
                    if (id == null) {
                        // cm_issue_drep: the peer still waits for an answer to a connection we forgot.
                        send(port, source, tid, new CmDrep(dreq.remoteCommId(), dreq.localCommId(), Octets.EMPTY));
                    } else if (id.localQpn != dreq.remoteQpn()) {
                        LOG.debug("DREQ for QPN {} reached id with QPN {}: ignored", dreq.remoteQpn(), id.localQpn);
                    } else {
                        apply(id, IbCmInput.RECV_DREQ, s);
                    }
                }
                case CmDrep drep -> apply(byLocal(drep.remoteCommId(), drep.localCommId()), IbCmInput.RECV_DREP, s);
                case CmSidrReq req -> onSidrReq(port, source, tid, req, s);
                case CmSidrRep rep -> apply(byLocal(rep.requestId(), 0), IbCmInput.RECV_SIDR_REP, s);
                case CmLap lap -> apply(byLocal(lap.remoteCommId(), lap.localCommId()), IbCmInput.RECV_LAP, s);
                case CmApr apr -> apply(byLocal(apr.remoteCommId(), apr.localCommId()), IbCmInput.RECV_APR, s);
            }
        });
    }

    private void apply(IbCmId id, IbCmInput input, Stimulus s) {
        if (id == null) {
            LOG.debug("{} matches no id: discarded", input);
            return;
        }
        if (!onPath(id, s)) {
            return;
        }
        id.apply(input, s);
    }

    /**
     * Whether a message for an existing id comes from its peer: comm IDs and QPNs can be guessed, so a DREQ, REJ,
     * RTU, LAP … from any other address must not tear down or change a connection (Linux's cm.c does not check
     * this). Counted when dropped.
     */
    private boolean onPath(IbCmId id, Stimulus s) {
        if (s.source() == null || id.acceptsFrom(s.source())) {
            return true;
        }
        offPath++;
        LOG.debug("{} from {} is not from the peer of {}: dropped", s.message() == null ? "input"
                : s.message().getClass().getSimpleName(), s.source(), id);
        return false;
    }

    /** CM messages dropped because they came from an address other than their connection's peer. */
    public long offPathMessages() {
        return locked(() -> offPath);
    }

    /** {@code cm_acquire_id}: the id with this local comm ID whose remote comm ID is {@code remote}. */
    private IbCmId byLocal(int local, int remote) {
        IbCmId id = localIds.get(local);
        return id != null && id.remoteId == remote ? id : null;
    }

    /** {@code cm_acquire_rejected_id}. */
    private IbCmId rejected(CmRej rej) {
        if (rej.reason() == CmRejectReason.TIMEOUT && rej.rejectInfo().length() >= 8) {
            long guid = 0;
            for (int i = 0; i < 8; i++) {
                guid = guid << 8 | (rej.rejectInfo().get(i) & 0xFF);
            }
            return remoteIds.get(new RemoteKey(rej.localCommId(), guid));
        }
        if (rej.messageRejected() == CmMessageKind.REQ) {
            return byLocal(rej.remoteCommId(), 0);
        }
        return byLocal(rej.remoteCommId(), rej.localCommId());
    }

    private void onReq(CmPort port, InetAddress source, long tid, CmReq req, Stimulus s) {
        RemoteKey remote = new RemoteKey(req.localCommId(), req.localCaGuid());
        IbCmId dup = remoteIds.get(remote);
        if (dup != null) {
            if (onPath(dup, s)) {
                dup.apply(IbCmInput.RECV_REQ, s);
            }
            return;
        }
        IbCmId stale = remoteQpns.get(new RemoteKey(req.localQpn(), req.localCaGuid()));
        if (stale != null) {
            // The peer reuses a QPN we still consider connected: refuse, and end the old connection.
            issueRej(port, source, tid, req.localCommId(), CmRejectReason.STALE_CONN, CmMessageKind.REQ);
            stale.sendDreq(Octets.EMPTY);
            return;
        }
        IbCmId listener = findListener(port, req.serviceId());
        if (listener == null) {
            issueRej(port, source, tid, req.localCommId(), CmRejectReason.INVALID_SERVICE_ID, CmMessageKind.REQ);
            return;
        }
        listener.apply(IbCmInput.RECV_REQ, s);
    }

    private void onRep(CmPort port, InetAddress source, long tid, CmRep rep, Stimulus s) {
        IbCmId id = localIds.get(rep.remoteCommId());
        if (id == null) {
            LOG.debug("REP for unknown comm ID {}: discarded", rep.remoteCommId());
            return;
        }
        if (!onPath(id, s)) {
            return; // before anything is learnt from it
        }
        if (id.remoteId == 0) {
            if (id.state() == IbCmState.REQ_SENT || id.state() == IbCmState.MRA_REQ_RCVD) {
                RemoteKey remote = new RemoteKey(rep.localCommId(), rep.localCaGuid());
                if (remoteIds.containsKey(remote)) {
                    LOG.debug("REP from a remote comm ID already connected: discarded");
                    return;
                }
                IbCmId stale = remoteQpns.get(new RemoteKey(rep.localQpn(), rep.localCaGuid()));
                if (stale != null) {
                    issueRej(port, source, tid, rep.localCommId(), CmRejectReason.STALE_CONN, CmMessageKind.REP);
                    stale.sendDreq(Octets.EMPTY);
                    return;
                }
                id.remoteCaGuid = rep.localCaGuid();
                id.remoteQpn = rep.localQpn();
                insertRemote(id, rep.localCommId());
            }
            id.apply(IbCmInput.RECV_REP, s);
        } else if (id.remoteId == rep.localCommId()) {
            id.apply(IbCmInput.RECV_REP, s); // a duplicate: cm_dup_rep_handler
        }
    }

    private void onSidrReq(CmPort port, InetAddress source, long tid, CmSidrReq req, Stimulus s) {
        if (remoteSidr.containsKey(new SidrKey(req.requestId(), source))) {
            LOG.debug("duplicate SIDR_REQ {} from {}: discarded", req.requestId(), source);
            return;
        }
        IbCmId listener = findListener(port, req.serviceId());
        if (listener == null) {
            send(port, source, tid, new CmSidrRep(req.requestId(), SidrStatus.UNSUPPORTED, 0, 0, req.serviceId(), 0,
                    Octets.EMPTY, Octets.EMPTY));
            return;
        }
        listener.apply(IbCmInput.RECV_SIDR_REQ, s);
    }

    private IbCmId findListener(CmPort port, long serviceId) {
        IbCmId l = listeners.get(new ListenKey(port.deviceKey(), serviceId));
        return l != null ? l : listeners.get(new ListenKey(null, serviceId));
    }

    /** {@code cm_issue_rej}: a REJ answering a message no id owns, with the message's TID. */
    private void issueRej(CmPort port, InetAddress destination, long tid, int remoteCommId, CmRejectReason reason,
            CmMessageKind rejected) {
        send(port, destination, tid, new CmRej(0, remoteCommId, rejected, reason, Octets.EMPTY, Octets.EMPTY));
    }

    // ------------------------------------------------------------------------------------------------ tables

    boolean listen(IbCmId id, CmPort port, long serviceId) {
        ListenKey key = new ListenKey(port == null ? null : port.deviceKey(), serviceId);
        if (listeners.containsKey(key)) {
            return false;
        }
        listeners.put(key, id);
        id.listenKey = key;
        return true;
    }

    void unlisten(IbCmId id) {
        if (id.listenKey != null) {
            listeners.remove(id.listenKey, id);
            id.listenKey = null;
        }
    }

    /** Records the id's remote comm ID and remote QPN (both qualified by the remote CA GUID). */
    void insertRemote(IbCmId id, int remoteCommId) {
        RemoteKey r = new RemoteKey(remoteCommId, id.remoteCaGuid);
        remoteIds.put(r, id);
        id.remoteKey = r;
        RemoteKey q = new RemoteKey(id.remoteQpn, id.remoteCaGuid);
        remoteQpns.putIfAbsent(q, id);
        id.qpnKey = q;
    }

    /** Forgets the remote QPN (entering timewait: the QP may be reused once it ends). */
    void removeRemoteQpn(IbCmId id) {
        if (id.qpnKey != null) {
            remoteQpns.remove(id.qpnKey, id);
            id.qpnKey = null;
        }
    }

    void removeRemote(IbCmId id) {
        removeRemoteQpn(id);
        if (id.remoteKey != null) {
            remoteIds.remove(id.remoteKey, id);
            id.remoteKey = null;
        }
        if (id.sidrKey != null) {
            remoteSidr.remove(id.sidrKey, id);
            id.sidrKey = null;
        }
    }

    void insertSidr(IbCmId id, SidrKey key) {
        remoteSidr.put(key, id);
        id.sidrKey = key;
    }

    void forget(IbCmId id) {
        unlisten(id);
        removeRemote(id);
        localIds.remove(id.localId, id);
    }

    IbCmId spawn(IbCmHandler handler, Object context) {
        return newId(handler, context);
    }

    // ------------------------------------------------------------------------------------------------ sending

    /** {@code cm_form_tid}: the port's MAD agent number in the high half, the local comm ID in the low half. */
    long formTid(CmPort port, int localId) {
        int hi = hiTids.computeIfAbsent(port, p -> nextHiTid++);
        return (long) hi << 32 | (localId & 0xFFFF_FFFFL);
    }

    void send(CmPort port, InetAddress destination, long tid, CmMessage message) {
        if (port == null || destination == null || removedPorts.containsKey(port)) {
            return;
        }
        try {
            port.send(destination, CmMad.send(tid, message));
        } catch (RuntimeException e) {
            LOG.debug("sending {} to {} failed: {}", message.attribute(), destination, e.toString());
        }
    }

    // ------------------------------------------------------------------------------------------------ locking

    /** Runs {@code r} under the CM lock. */
    public void locked(Runnable r) {
        lock.lock();
        try {
            r.run();
        } finally {
            lock.unlock();
        }
    }

    /** Computes {@code s} under the CM lock. */
    public <T> T locked(Supplier<T> s) {
        lock.lock();
        try {
            return s.get();
        } finally {
            lock.unlock();
        }
    }

    /** Delivers {@code event} to its id's handler; a non-zero answer destroys the id (as the kernel does). */
    void deliver(IbCmEvent event) {
        IbCmId id = event.id();
        int ret;
        try {
            ret = id.handler().handle(event);
        } catch (RuntimeException e) {
            LOG.warn("IB CM handler failed on {}: {}", event.type(), e.toString(), e);
            ret = -22;
        }
        if (ret != 0) {
            id.destroy(ret);
        }
    }

    /** What an input carries: the message and where it came from, or a consumer's parameters. */
    record Stimulus(CmMessage message, long tid, CmPort port, InetAddress source, Object param) {
        static final Stimulus NONE = new Stimulus(null, 0, null, null, null);

        static Stimulus of(Object param) {
            return new Stimulus(null, 0, null, null, param);
        }
    }

    List<IbCmId> ids() {
        return List.copyOf(localIds.values());
    }
}
