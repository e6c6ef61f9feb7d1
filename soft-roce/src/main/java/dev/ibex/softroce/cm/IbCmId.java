package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.softroce.mad.CmDrep;
import dev.ibex.softroce.mad.CmDreq;
import dev.ibex.softroce.mad.CmMra;
import dev.ibex.softroce.mad.CmPath;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.CmRep;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmRtu;
import dev.ibex.softroce.mad.CmSidrReq;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.SidrStatus;
import java.net.InetAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An IB CM communication identifier ({@code struct ib_cm_id} + {@code cm_id_private}). Every change of state
 * goes through {@link IbCmTable}; this class carries out the table's actions — the MADs it formats
 * ({@link IbCmMads}, with the TIDs of wire.md §2.1), its resends and timewait ({@link IbCmTimers}), the table
 * bookkeeping — and reports its events.
 *
 * <p>Consumer calls return 0 or a negative errno like their kernel counterparts (-EINVAL when the table refuses
 * the call in the current state).
 */
public final class IbCmId {
    private static final Logger LOG = LoggerFactory.getLogger(IbCmId.class);
    static final int EINVAL = 22;
    static final int EBUSY = 16;
    static final int EISCONN = 106;
    static final int ENOMEM = 12;

    private final IbCm cm;
    final int localId;
    private IbCmHandler handler;
    private Object context;
    private IbCmState state = IbCmState.IDLE;
    private boolean destroyed;

    int remoteId;
    long tid;
    long serviceId;
    CmPort port;
    InetAddress remoteAddress;
    /** The remote address before the last migration (its messages still count), or {@code null}. */
    private InetAddress formerRemoteAddress;
    /** Addresses of the QP's alternate path, or {@code null}. */
    private java.util.function.Predicate<InetAddress> alternateSource;
    long remoteCaGuid;
    int localQpn;
    int remoteQpn;
    int sqPsn;
    int rqPsn;
    Mtu pathMtu = Mtu.MTU_1024;
    int pkey = 0xFFFF;
    int responderResources;
    int initiatorDepth;
    int retryCount;
    int rnrRetryCount;
    int targetAckDelay;
    long responseTimeoutMs;
    int maxCmRetries;
    /** {@code av.timeout}: packet lifetime + 1, updated by the REP's target ACK delay; QP ACK timeout and timewait. */
    int avTimeout;
    PathRecord path;
    int serviceTimeout;
    /** Private data of our last RTU, MRA or DREP, sent again when a duplicate asks for it. */
    Octets storedData = Octets.EMPTY;
    /** The request awaiting an answer and the timewait. */
    final IbCmTimers timers;

    IbCm.ListenKey listenKey;
    IbCm.RemoteKey remoteKey;
    IbCm.RemoteKey qpnKey;
    IbCm.SidrKey sidrKey;

    IbCmId(IbCm cm, int localId, IbCmHandler handler, Object context) {
        this.cm = cm;
        this.localId = localId;
        this.handler = handler;
        this.context = context;
        this.timers = new IbCmTimers(cm, this);
    }

    // ------------------------------------------------------------------------------------------------ accessors

    public IbCmState state() {
        return cm.locked(() -> state);
    }

    /** The local communication ID. */
    public int localId() {
        return localId;
    }

    /** The peer's communication ID (0 until known). */
    public int remoteId() {
        return remoteId;
    }

    /** The TID responses on this id reuse (the REQ's, or the last DREQ's). */
    public long transactionId() {
        return tid;
    }

    public long serviceId() {
        return serviceId;
    }

    public CmPort port() {
        return port;
    }

    public InetAddress remoteAddress() {
        return remoteAddress;
    }

    /**
     * Whether a CM message from {@code source} may concern this id: its peer's address (the primary path's remote
     * GID), or any address while the peer is not known yet (a listener). Under the CM's lock.
     */
    boolean acceptsFrom(InetAddress source) {
        return remoteAddress == null || remoteAddress.equals(source) || source.equals(formerRemoteAddress)
                || (alternateSource != null && alternateSource.test(source));
    }

    /**
     * Also accept CM messages from addresses {@code alternate} names (the QP's alternate path, APM); under the CM's
     * lock.
     */
    void alsoAcceptFrom(java.util.function.Predicate<InetAddress> alternate) {
        this.alternateSource = alternate;
    }

    /**
     * The connection migrated (APM, the kernel's {@code cm_migrate}): CM messages now go from {@code newPort} to
     * {@code newRemote}; the former path's messages still count (a DREQ may be on its way). Under the CM's lock.
     */
    void followPath(CmPort newPort, InetAddress newRemote) {
        if (remoteAddress == null || (newPort == port && newRemote.equals(remoteAddress))) {
            return;
        }
        LOG.debug("id {}: the CM follows the migration to {} -> {}", Integer.toHexString(localId), newPort,
                newRemote);
        formerRemoteAddress = remoteAddress;
        port = newPort;
        remoteAddress = newRemote;
    }

    /** The path of the connection (the active side's route, or the one derived from the REQ). */
    public PathRecord path() {
        return path;
    }

    public int remoteQpn() {
        return remoteQpn;
    }

    IbCmHandler handler() {
        return handler;
    }

    public void handler(IbCmHandler handler) {
        this.handler = handler;
    }

    public Object context() {
        return context;
    }

    public void context(Object context) {
        this.context = context;
    }

    boolean isDestroyed() {
        return destroyed;
    }

    /** The state, under the CM's lock (what {@link #state()} takes the lock for). */
    IbCmState current() {
        return state;
    }

    IbCm cm() {
        return cm;
    }

    // ------------------------------------------------------------------------------------------------ consumer

    /** {@code ib_cm_listen} on {@code port} ({@code null}: every port). -EBUSY when the service is taken. */
    public int listen(CmPort port, long serviceId) {
        return cm.locked(() -> {
            if (state != IbCmState.IDLE) {
                return -EINVAL;
            }
            if (!cm.listen(this, port, serviceId)) {
                return -EBUSY;
            }
            this.port = port;
            this.serviceId = serviceId;
            return apply(IbCmInput.LISTEN, IbCm.Stimulus.NONE);
        });
    }

    /** {@code ib_send_cm_req}. */
    public int sendReq(IbCmReqParam p) {
        return call(IbCmInput.SEND_REQ, p);
    }

    /** {@code ib_send_cm_rep}. */
    public int sendRep(IbCmRepParam p) {
        return call(IbCmInput.SEND_REP, p);
    }

    /** {@code ib_send_cm_rtu}. */
    public int sendRtu(Octets privateData) {
        return call(IbCmInput.SEND_RTU, privateData);
    }

    /** {@code ib_send_cm_rej}. */
    public int sendRej(CmRejectReason reason, Octets rejectInfo, Octets privateData) {
        return call(IbCmInput.SEND_REJ, new Rej(reason, rejectInfo, privateData));
    }

    /**
     * {@code ib_send_cm_mra}.
     *
     * @param delay {@code IB_CM_MRA_FLAG_DELAY}: send the MRA only when a duplicate REQ/REP shows up
     */
    public int sendMra(int serviceTimeout, boolean delay, Octets privateData) {
        return call(delay ? IbCmInput.DELAY_MRA : IbCmInput.SEND_MRA, new Mra(serviceTimeout, privateData));
    }

    /** {@code ib_send_cm_dreq}. */
    public int sendDreq(Octets privateData) {
        return call(IbCmInput.SEND_DREQ, privateData);
    }

    /** {@code ib_send_cm_drep}. */
    public int sendDrep(Octets privateData) {
        return call(IbCmInput.SEND_DREP, privateData);
    }

    /** {@code ib_send_cm_sidr_req}. */
    public int sendSidrReq(IbCmSidrReqParam p) {
        return call(IbCmInput.SEND_SIDR_REQ, p);
    }

    /** {@code ib_send_cm_sidr_rep}. */
    public int sendSidrRep(SidrStatus status, int qpn, int qkey, Octets privateData) {
        return call(IbCmInput.SEND_SIDR_REP, new SidrRep(status, qpn, qkey, privateData));
    }

    /** {@code ib_cm_notify(IB_EVENT_COMM_EST)}: -EISCONN when already established. */
    public int establish() {
        return call(IbCmInput.ESTABLISH, null);
    }

    /** {@code ib_destroy_cm_id}: sends what the state requires (REJ, DREQ, DREP, SIDR_REP) and forgets the id. */
    public void destroy() {
        destroy(0);
    }

    void destroy(int err) {
        cm.locked(() -> {
            if (destroyed) {
                return;
            }
            if (err == -ENOMEM && (state == IbCmState.REQ_RCVD || state == IbCmState.MRA_REQ_SENT)) {
                // Do not reject: the peer's REQ retry may find room later (cm_destroy_id).
                state = IbCmState.IDLE;
            } else {
                apply(IbCmInput.DESTROY, IbCm.Stimulus.NONE);
            }
            destroyed = true;
            timers.stop();
            cm.forget(this);
        });
    }

    private int call(IbCmInput input, Object param) {
        return cm.locked(() -> destroyed ? -EINVAL : apply(input, IbCm.Stimulus.of(param)));
    }

    /**
     * {@code ib_cm_init_qp_attr}: the attributes for moving a connected QP to {@code target}, or {@code null}
     * when the state does not allow it.
     */
    public QpAttr initQpAttr(QpState target) {
        return cm.locked(() -> {
            QpAttr a = new QpAttr();
            switch (target) {
                case INIT -> {
                    if (!in(IbCmState.REQ_SENT, IbCmState.MRA_REQ_RCVD, IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT,
                            IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT, IbCmState.REP_SENT, IbCmState.MRA_REP_RCVD,
                            IbCmState.ESTABLISHED)) {
                        return null;
                    }
                    int access = 1 << 1; // REMOTE_WRITE
                    if (responderResources > 0) {
                        access |= 1 << 2 | 1 << 3; // REMOTE_READ | REMOTE_ATOMIC
                    }
                    a.state(QpState.INIT).accessFlags(access).pkeyIndex(0).portNum(port == null ? 1 : port.portNum());
                }
                case RTR -> {
                    if (!in(IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT, IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT,
                            IbCmState.REP_SENT, IbCmState.MRA_REP_RCVD, IbCmState.ESTABLISHED)) {
                        return null;
                    }
                    a.state(QpState.RTR).ahAttr(ahAttr()).pathMtu(pathMtu).destQpNum(remoteQpn).rqPsn(rqPsn)
                            .maxDestRdAtomic(responderResources).minRnrTimer(0);
                }
                case RTS -> {
                    if (!in(IbCmState.REQ_RCVD, IbCmState.MRA_REQ_SENT, IbCmState.REP_RCVD, IbCmState.MRA_REP_SENT,
                            IbCmState.REP_SENT, IbCmState.MRA_REP_RCVD, IbCmState.ESTABLISHED)) {
                        return null;
                    }
                    a.state(QpState.RTS).sqPsn(sqPsn).retryCnt(retryCount).rnrRetry(rnrRetryCount)
                            .maxRdAtomic(initiatorDepth).timeout(avTimeout);
                }
                default -> {
                    return null;
                }
            }
            return a;
        });
    }

    /** The address vector of the path (RoCE: global, GIDs = IP addresses). */
    AhAttr ahAttr() {
        if (path == null) {
            return null;
        }
        int sgidIndex = port == null ? 0 : port.gidIndex();
        return new AhAttr(path.dgid(), path.flowLabel(), sgidIndex, path.hopLimit(), path.trafficClass(), 0,
                path.sl(), 0, path.rate(), true, port == null ? 1 : port.portNum());
    }

    private boolean in(IbCmState... states) {
        for (IbCmState s : states) {
            if (state == s) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------ engine

    /** Applies {@code input} as the table says; returns 0 or a negative errno for refused calls. */
    int apply(IbCmInput input, IbCm.Stimulus s) {
        IbCmTransition t = IbCmTable.lookup(state, input);
        switch (t.outcome()) {
            case DISCARD -> {
                LOG.debug("id {} in {}: {} discarded", Integer.toHexString(localId), state, input);
                return 0;
            }
            case INVALID -> {
                return -EINVAL;
            }
            case ALREADY_CONNECTED -> {
                return -EISCONN;
            }
            case APPLY -> {
            }
        }
        IbCmState from = state;
        IbCmId child = null;
        for (IbCmAction a : t.actions()) {
            IbCmId spawned = perform(a, from, t.next(), s);
            if (spawned != null) {
                child = spawned;
            }
        }
        state = t.next();
        if (state == IbCmState.IDLE && from != IbCmState.IDLE) {
            timers.stop();
            cm.removeRemote(this);
        }
        if (t.event() != null) {
            if (child != null) {
                cm.deliver(new IbCmEvent(t.event(), child, this, s.message()));
            } else {
                cm.deliver(new IbCmEvent(t.event(), this, null, s.message()));
            }
        }
        return 0;
    }

    private IbCmId perform(IbCmAction action, IbCmState from, IbCmState to, IbCm.Stimulus s) {
        switch (action) {
            case LISTEN_INSERT -> {
                // inserted by listen() before the transition, so that EBUSY changes nothing
            }
            case LISTEN_REMOVE -> cm.unlisten(this);
            case SPAWN_REQ -> {
                return spawnFromReq(s);
            }
            case SPAWN_SIDR_REQ -> {
                return spawnFromSidrReq(s);
            }
            case SEND_REQ -> IbCmMads.sendReq(this, (IbCmReqParam) s.param(), to);
            case SEND_REP -> IbCmMads.sendRep(this, (IbCmRepParam) s.param(), to);
            case SEND_RTU -> {
                storedData = (Octets) s.param();
                cm.send(port, remoteAddress, tid, new CmRtu(localId, remoteId, storedData));
            }
            case RESEND_RTU -> cm.send(port, remoteAddress, tid, new CmRtu(localId, remoteId, storedData));
            case SEND_REJ -> {
                Rej r = (Rej) s.param();
                IbCmMads.sendRej(this, from, r.reason(), r.rejectInfo(), r.privateData());
            }
            case SEND_REJ_TIMEOUT -> IbCmMads.sendRej(this, from, CmRejectReason.TIMEOUT,
                    IbCmMads.guidBytes(port.caGuid()), Octets.EMPTY);
            case SEND_REJ_CONSUMER -> IbCmMads.sendRej(this, from, CmRejectReason.CONSUMER_DEFINED, Octets.EMPTY,
                    Octets.EMPTY);
            case SEND_REJ_STALE -> IbCmMads.sendRej(this, from, CmRejectReason.STALE_CONN, Octets.EMPTY,
                    Octets.EMPTY);
            case PREPARE_MRA -> {
                Mra m = (Mra) s.param();
                serviceTimeout = m.serviceTimeout();
                storedData = m.privateData();
            }
            case SEND_MRA -> {
                Mra m = (Mra) s.param();
                serviceTimeout = m.serviceTimeout();
                storedData = m.privateData();
                IbCmMads.sendMra(this, to);
            }
            case RESEND_MRA -> IbCmMads.sendMra(this, from);
            case SEND_DREQ -> timers.sendRequest(new CmDreq(localId, remoteId, remoteQpn, (Octets) s.param()),
                    cm.formTid(port, localId), responseTimeoutMs, maxCmRetries, to);
            case SEND_DREQ_ONCE -> cm.send(port, remoteAddress, cm.formTid(port, localId),
                    new CmDreq(localId, remoteId, remoteQpn, Octets.EMPTY));
            case SEND_DREP -> {
                storedData = s.param() instanceof Octets o ? o : Octets.EMPTY;
                cm.send(port, remoteAddress, tid, new CmDrep(localId, remoteId, storedData));
            }
            case RESEND_DREP -> cm.send(port, s.source() != null ? s.source() : remoteAddress, tid,
                    new CmDrep(localId, remoteId, storedData));
            case SEND_SIDR_REQ -> IbCmMads.sendSidrReq(this, (IbCmSidrReqParam) s.param(), to);
            case SEND_SIDR_REP -> {
                SidrRep r = (SidrRep) s.param();
                IbCmMads.sendSidrRep(this, r.status(), r.qpn(), r.qkey(), r.privateData());
            }
            case SEND_SIDR_REP_REJECT -> IbCmMads.sendSidrRep(this, SidrStatus.REJECT, 0, 0, Octets.EMPTY);
            case CANCEL_SEND -> timers.cancelSend();
            case EXTEND_SEND -> {
                if (s.message() instanceof CmMra mra) {
                    timers.extendSend(CmTimings.toMillis(mra.serviceTimeout()) + CmTimings.toMillis(avTimeout), to);
                }
            }
            case RECORD_REP -> IbCmMads.recordRep(this, (CmRep) s.message());
            case RECORD_DREQ_TID -> tid = s.tid();
            case ENTER_TIMEWAIT -> {
                cm.removeRemoteQpn(this);
                timers.enterTimewait(CmTimings.toMillis(avTimeout));
            }
            case CANCEL_TIMEWAIT -> timers.cancelTimewait();
        }
        return null;
    }

    private IbCmId spawnFromReq(IbCm.Stimulus s) {
        CmReq req = (CmReq) s.message();
        IbCmId child = cm.spawn(handler, context);
        child.remoteId = req.localCommId();
        child.serviceId = req.serviceId();
        child.tid = s.tid();
        child.port = s.port();
        child.remoteAddress = s.source();
        child.responseTimeoutMs = CmTimings.toMillis(req.localCmResponseTimeout());
        child.maxCmRetries = req.maxCmRetries();
        child.remoteQpn = req.localQpn();
        child.remoteCaGuid = req.localCaGuid();
        child.initiatorDepth = req.responderResources();
        child.responderResources = req.initiatorDepth();
        child.pathMtu = mtu(req.pathMtu());
        child.pkey = req.pKey();
        child.sqPsn = req.startingPsn();
        child.retryCount = req.retryCount();
        child.rnrRetryCount = req.rnrRetryCount();
        CmPath p = req.primaryPath();
        int lifeTime = p.localAckTimeout() - (p.localAckTimeout() > 0 ? 1 : 0);
        // The passive side's view: source and destination swap (cm_format_paths_from_req).
        child.path = new PathRecord(Gids.toSpi(p.remoteGid()), Gids.toSpi(p.localGid()), 0, 0, p.flowLabel(),
                p.hopLimit(), p.trafficClass(), req.pKey(), p.sl(), child.pathMtu, p.packetRate(), lifeTime);
        child.avTimeout = lifeTime + 1;
        child.state = IbCmState.REQ_RCVD;
        cm.insertRemote(child, child.remoteId);
        return child;
    }

    private IbCmId spawnFromSidrReq(IbCm.Stimulus s) {
        CmSidrReq req = (CmSidrReq) s.message();
        IbCmId child = cm.spawn(handler, context);
        child.remoteId = req.requestId();
        child.serviceId = req.serviceId();
        child.tid = s.tid();
        child.port = s.port();
        child.remoteAddress = s.source();
        child.pkey = req.pKey();
        child.state = IbCmState.SIDR_REQ_RCVD;
        cm.insertSidr(child, new IbCm.SidrKey(req.requestId(), s.source()));
        return child;
    }

    private static Mtu mtu(int code) {
        return code >= 1 && code <= 5 ? Mtu.ofCode(code) : Mtu.MTU_1024;
    }

    // ------------------------------------------------------------------------------------------------ params

    record Rej(CmRejectReason reason, Octets rejectInfo, Octets privateData) {}

    record Mra(int serviceTimeout, Octets privateData) {}

    record SidrRep(SidrStatus status, int qpn, int qkey, Octets privateData) {}

    @Override
    public String toString() {
        return "IbCmId[" + Integer.toHexString(localId) + " " + state + "]";
    }
}
