package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.IbCmHarness.IP_A;
import static dev.ibex.softroce.cm.IbCmHarness.IP_B;
import static dev.ibex.softroce.cm.IbCmHarness.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.mad.CmAttribute;
import dev.ibex.softroce.mad.CmDreq;
import dev.ibex.softroce.mad.CmMessageKind;
import dev.ibex.softroce.mad.CmMra;
import dev.ibex.softroce.mad.CmRej;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.CmRep;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmSidrRep;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.SidrStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** MAD-level IB CM scenarios on a virtual clock: loss, duplicates, stale connections, timewait, TIDs. */
class IbCmScenarioTest {
    private static final CmTimings T = CmTimings.FAST;
    private final IbCmHarness h = new IbCmHarness(T);

    private List<IbCmEventType> typesA() {
        return h.eventsA.stream().map(IbCmEvent::type).toList();
    }

    private List<IbCmEventType> typesB() {
        return h.eventsB.stream().map(IbCmEvent::type).toList();
    }

    private List<CmAttribute> wire() {
        return h.sim.net.log().stream().map(MadNetwork.Packet::attribute).toList();
    }

    private void establish() {
        h.reach(IbCmState.ESTABLISHED);
        assertThat(h.passive.state()).isEqualTo(IbCmState.ESTABLISHED);
    }

    @Test
    void handshakeReusesTheReqTidAndSwapsCommIds() {
        establish();
        List<MadNetwork.Packet> log = h.sim.net.log();
        assertThat(wire()).containsExactly(CmAttribute.REQ, CmAttribute.REP, CmAttribute.RTU);
        long reqTid = log.get(0).tid();
        assertThat(log).allSatisfy(p -> assertThat(p.tid()).isEqualTo(reqTid));
        assertThat((int) reqTid).isEqualTo(h.active.localId());
        assertThat(reqTid >>> 32).isPositive(); // the MAD agent's number
        CmRep rep = (CmRep) log.get(1).mad().message();
        assertThat(rep.localCommId()).isEqualTo(h.passive.localId());
        assertThat(rep.remoteCommId()).isEqualTo(h.active.localId());
        CmReq req = (CmReq) log.get(0).mad().message();
        assertThat(req.localCaGuid()).isEqualTo(IbCmHarness.GUID_A);
        assertThat(req.primaryPath().localLid()).isEqualTo(0xFFFF);
        assertThat(req.primaryPath().subnetLocal()).isFalse();
        assertThat(req.primaryPath().localAckTimeout()).isEqualTo(T.ackTimeout());
        assertThat(req.remoteCmResponseTimeout()).isEqualTo(T.cmResponseTimeout());
        assertThat(req.maxCmRetries()).isEqualTo(T.maxCmRetries());
        assertThat(typesA()).containsExactly(IbCmEventType.REP_RECEIVED);
        assertThat(typesB()).containsExactly(IbCmEventType.REQ_RECEIVED, IbCmEventType.RTU_RECEIVED);
        // The passive side derives its path (and so its timewait) from the REQ.
        assertThat(h.passive.path().packetLifeTime()).isEqualTo(T.ackTimeout() - 1);
        assertThat(h.passive.path().sgid()).isEqualTo(dev.ibex.cm.spi.Gid.of(IP_B));
    }

    @Test
    void lostReqIsRetriedAfterTheResponseTimeout() {
        h.listen();
        int[] dropped = {0};
        h.dropping(p -> p.attribute() == CmAttribute.REQ && dropped[0]++ < 2);
        h.newActive().sendReq(h.reqParam());
        h.sim.settle();
        assertThat(h.passive).isNull();
        h.sim.runFor(T.reqTimeoutMillis() - 1);
        assertThat(h.sim.net.sent(CmAttribute.REQ)).hasSize(1);
        h.sim.runFor(1);
        assertThat(h.sim.net.sent(CmAttribute.REQ)).hasSize(2);
        h.sim.runFor(T.reqTimeoutMillis());
        assertThat(h.sim.net.sent(CmAttribute.REQ)).hasSize(3);
        assertThat(h.passive.state()).isEqualTo(IbCmState.REQ_RCVD);
        // every retry carries the same TID and comm ID
        assertThat(h.sim.net.sent(CmAttribute.REQ).stream().map(MadNetwork.Packet::tid).distinct()).hasSize(1);
    }

    @Test
    void reqWithoutAnswerEndsInReqErrorAfterAllRetries() {
        h.newActive().sendReq(h.reqParam()); // nobody at 10.0.0.2 answers: no listener registered, and drop all
        h.dropping(p -> true);
        long tries = 1 + T.maxCmRetries();
        h.sim.runFor(tries * T.reqTimeoutMillis() - 1);
        assertThat(typesA()).isEmpty();
        h.sim.runFor(1);
        assertThat(typesA()).containsExactly(IbCmEventType.REQ_ERROR);
        assertThat(h.sim.net.sent(CmAttribute.REQ)).hasSize((int) tries);
        assertThat(h.active.state()).isEqualTo(IbCmState.IDLE);
        assertThat(h.sim.timer.pending()).isZero();
    }

    @Test
    void reqToAPortNobodyListensOnIsRejectedWithReason8AndTheReqTid() {
        h.newActive().sendReq(h.reqParam());
        h.sim.settle();
        MadNetwork.Packet rej = h.sim.net.sent(CmAttribute.REJ).getFirst();
        CmRej m = (CmRej) rej.mad().message();
        assertThat(m.reason()).isEqualTo(CmRejectReason.INVALID_SERVICE_ID);
        assertThat(m.messageRejected()).isEqualTo(CmMessageKind.REQ);
        assertThat(m.remoteCommId()).isEqualTo(h.active.localId());
        assertThat(rej.tid()).isEqualTo(h.sim.net.sent(CmAttribute.REQ).getFirst().tid());
        assertThat(typesA()).containsExactly(IbCmEventType.REJ_RECEIVED);
        assertThat(h.active.state()).isEqualTo(IbCmState.IDLE);
        assertThat(h.b.liveIds()).isZero();
    }

    @Test
    void lostRepIsRetriedByThePassiveSide() {
        h.reach(IbCmState.REQ_RCVD);
        int[] dropped = {0};
        h.dropping(p -> p.attribute() == CmAttribute.REP && dropped[0]++ < 1);
        h.passive.sendRep(h.repParam());
        h.sim.settle();
        assertThat(h.active.state()).isEqualTo(IbCmState.REQ_SENT);
        h.sim.runFor(CmTimings.toMillis(T.cmResponseTimeout())); // REP interval = the REQ's local CM response timeout
        assertThat(h.sim.net.sent(CmAttribute.REP)).hasSize(2);
        assertThat(h.active.state()).isEqualTo(IbCmState.REP_RCVD);
    }

    @Test
    void lostRtuIsRecoveredByTheRepRetryAndAResentRtu() {
        h.reach(IbCmState.REP_RCVD);
        h.dropping(attribute(CmAttribute.RTU).and(p -> h.sim.net.sent(CmAttribute.RTU).size() == 1));
        h.active.sendRtu(Octets.of(new byte[] {42}));
        h.sim.settle();
        assertThat(h.passive.state()).isEqualTo(IbCmState.REP_SENT);
        h.sim.runFor(CmTimings.toMillis(T.cmResponseTimeout()));
        // duplicate REP in ESTABLISHED → RTU again, with the same private data
        assertThat(wire()).containsSubsequence(CmAttribute.RTU, CmAttribute.REP, CmAttribute.RTU);
        assertThat(h.passive.state()).isEqualTo(IbCmState.ESTABLISHED);
        assertThat(h.sim.net.sent(CmAttribute.RTU).getLast().mad().message().privateData().get(0)).isEqualTo((byte) 42);
    }

    @Test
    void commEstEstablishesThePassiveSideWhenTheRtuIsLost() {
        h.reach(IbCmState.REP_RCVD);
        h.dropping(attribute(CmAttribute.RTU));
        h.active.sendRtu(Octets.EMPTY);
        h.sim.settle();
        assertThat(h.passive.establish()).isZero();
        assertThat(h.passive.state()).isEqualTo(IbCmState.ESTABLISHED);
        assertThat(typesB()).endsWith(IbCmEventType.USER_ESTABLISHED);
        assertThat(h.passive.establish()).isEqualTo(-IbCmId.EISCONN);
        h.sim.runFor(1000);
        assertThat(h.sim.net.sent(CmAttribute.REP)).hasSize(1); // COMM_EST cancelled the REP retries
    }

    @Test
    void duplicateReqAfterADelayedMraGetsAnMraAndTheActiveSideWaitsLonger() {
        h.reach(IbCmState.MRA_REQ_SENT);
        h.sim.runFor(T.reqTimeoutMillis()); // the REQ is retried: the passive side answers with the MRA now
        assertThat(h.sim.net.sent(CmAttribute.REQ)).hasSize(2);
        MadNetwork.Packet mra = h.sim.net.sent(CmAttribute.MRA).getFirst();
        CmMra m = (CmMra) mra.mad().message();
        assertThat(m.messageMraed()).isEqualTo(CmMessageKind.REQ);
        assertThat(m.serviceTimeout()).isEqualTo(T.mraServiceTimeout());
        assertThat(mra.tid()).isEqualTo(h.sim.net.sent(CmAttribute.REQ).getFirst().tid());
        assertThat(h.active.state()).isEqualTo(IbCmState.MRA_REQ_RCVD);
        assertThat(typesA()).containsExactly(IbCmEventType.MRA_RECEIVED);
        // Now a try lasts ms(service timeout) + ms(ack timeout): no REQ retry within the old interval.
        long extended = CmTimings.toMillis(T.mraServiceTimeout()) + CmTimings.toMillis(T.packetLifeTime() + 1);
        h.sim.runFor(extended - 1);
        assertThat(h.sim.net.sent(CmAttribute.REQ)).hasSize(2);
        h.passive.sendRep(h.repParam());
        h.sim.settle();
        assertThat(h.active.state()).isEqualTo(IbCmState.REP_RCVD);
    }

    @Test
    void duplicateRepAfterADelayedMraGetsAnMra() {
        h.reach(IbCmState.MRA_REP_SENT);
        h.sim.runFor(CmTimings.toMillis(T.cmResponseTimeout()));
        CmMra m = (CmMra) h.sim.net.sent(CmAttribute.MRA).getFirst().mad().message();
        assertThat(m.messageMraed()).isEqualTo(CmMessageKind.REP);
        assertThat(h.passive.state()).isEqualTo(IbCmState.MRA_REP_RCVD);
    }

    @Test
    void disconnectRunsDreqDrepThenTimewaitOnBothSides() {
        establish();
        h.sim.net.clearLog();
        h.active.sendDreq(Octets.EMPTY);
        h.sim.settle();
        assertThat(h.passive.state()).isEqualTo(IbCmState.DREQ_RCVD);
        h.passive.sendDrep(Octets.EMPTY);
        h.sim.settle();
        List<MadNetwork.Packet> log = h.sim.net.log();
        assertThat(wire()).containsExactly(CmAttribute.DREQ, CmAttribute.DREP);
        assertThat(log.get(1).tid()).isEqualTo(log.get(0).tid()); // DREP reuses the DREQ's TID
        assertThat(h.active.state()).isEqualTo(IbCmState.TIMEWAIT);
        assertThat(h.passive.state()).isEqualTo(IbCmState.TIMEWAIT);
        h.sim.runFor(CmTimings.toMillis(T.ackTimeout()));
        assertThat(h.active.state()).isEqualTo(IbCmState.IDLE);
        assertThat(h.passive.state()).isEqualTo(IbCmState.IDLE);
        assertThat(typesA()).endsWith(IbCmEventType.DREP_RECEIVED, IbCmEventType.TIMEWAIT_EXIT);
        assertThat(typesB()).endsWith(IbCmEventType.DREQ_RECEIVED, IbCmEventType.TIMEWAIT_EXIT);
    }

    @Test
    void passiveDisconnectUsesANewTidFromThePassiveCommId() {
        establish();
        h.sim.net.clearLog();
        h.passive.sendDreq(Octets.EMPTY);
        h.sim.settle();
        h.active.sendDrep(Octets.EMPTY);
        h.sim.settle();
        List<MadNetwork.Packet> log = h.sim.net.log();
        assertThat((int) log.get(0).tid()).isEqualTo(h.passive.localId());
        assertThat(log.get(1).tid()).isEqualTo(log.get(0).tid());
        assertThat(((CmDreq) log.get(0).mad().message()).remoteQpn()).isEqualTo(0x11);
    }

    @Test
    void lostDreqIsRetriedAndExhaustionGivesDreqErrorAndTimewait() {
        establish();
        h.dropping(attribute(CmAttribute.DREQ));
        h.active.sendDreq(Octets.EMPTY);
        long interval = h.active.responseTimeoutMs;
        h.sim.runFor(interval * (1 + T.maxCmRetries()) - 1);
        assertThat(h.sim.net.sent(CmAttribute.DREQ)).hasSize(1 + T.maxCmRetries());
        assertThat(h.active.state()).isEqualTo(IbCmState.DREQ_SENT);
        h.sim.runFor(1);
        assertThat(typesA()).endsWith(IbCmEventType.DREQ_ERROR);
        assertThat(h.active.state()).isEqualTo(IbCmState.TIMEWAIT);
        h.sim.runFor(CmTimings.toMillis(T.ackTimeout()));
        assertThat(typesA()).endsWith(IbCmEventType.DREQ_ERROR, IbCmEventType.TIMEWAIT_EXIT);
    }

    @Test
    void duplicateDreqInTimewaitIsAnsweredWithTheSameDrep() {
        h.reach(IbCmState.TIMEWAIT);
        h.sim.net.clearLog();
        h.inject(h.b, h.pb, IP_A, 0x77, new CmDreq(h.active.localId(), h.passive.localId(), 0x22, Octets.EMPTY));
        assertThat(wire()).containsExactly(CmAttribute.DREP);
        assertThat(h.sim.net.log().getFirst().tid()).isEqualTo(h.passive.transactionId());
    }

    @Test
    void dreqForAnUnknownConnectionIsAnsweredWithDrep() {
        h.inject(h.b, h.pb, IP_A, 0x1234_5678L, new CmDreq(0x55, 0x66, 0x22, Octets.EMPTY));
        MadNetwork.Packet drep = h.sim.net.sent(CmAttribute.DREP).getFirst();
        assertThat(drep.tid()).isEqualTo(0x1234_5678L);
        assertThat(drep.destination()).isEqualTo(IP_A);
    }

    @Test
    void dreqNamingAnotherQpnIsIgnored() {
        establish();
        h.sim.net.clearLog();
        h.inject(h.b, h.pb, IP_A, 0x77, new CmDreq(h.active.localId(), h.passive.localId(), 0x999, Octets.EMPTY));
        assertThat(h.passive.state()).isEqualTo(IbCmState.ESTABLISHED);
        assertThat(wire()).isEmpty();
    }

    @Test
    void reqFromAQpnThatIsStillConnectedIsStaleRej10AndTheOldConnectionIsDisconnected() {
        establish();
        h.sim.net.clearLog();
        IbCmId second = h.a.createId(h.handlerA(), "second");
        second.sendReq(h.reqParam()); // same local QPN 0x11 as the established connection
        h.sim.settle();
        CmRej rej = (CmRej) h.sim.net.sent(CmAttribute.REJ).getFirst().mad().message();
        assertThat(rej.reason()).isEqualTo(CmRejectReason.STALE_CONN);
        assertThat(h.sim.net.sent(CmAttribute.DREQ)).hasSize(1);
        assertThat(second.state()).isEqualTo(IbCmState.TIMEWAIT); // REJ STALE_CONN: timewait, not idle
    }

    @Test
    void duplicateReqInTimewaitIsRejectedAsStale() {
        h.reach(IbCmState.TIMEWAIT);
        h.sim.net.clearLog();
        // the original REQ again (same remote comm ID and CA GUID): the passive id is in TIMEWAIT
        h.inject(h.b, h.pb, IP_A, 0x42, new CmReq(h.active.localId(), 0, IbCmHarness.SID, IbCmHarness.GUID_A, 0, 0x11,
                1, 0, 1, 0, 12, 0, false, 1, 12, 7, 0xFFFF, 3, false, 7, 3, false, 0,
                dev.ibex.softroce.mad.CmPath.ABSENT, dev.ibex.softroce.mad.CmPath.ABSENT, false, Octets.EMPTY));
        CmRej rej = (CmRej) h.sim.net.sent(CmAttribute.REJ).getFirst().mad().message();
        assertThat(rej.reason()).isEqualTo(CmRejectReason.STALE_CONN);
    }

    @Test
    void destroyWhileTheReqIsOutstandingSendsRej4WithTheCaGuid() {
        h.reach(IbCmState.REQ_RCVD);
        h.sim.net.clearLog();
        h.active.destroy();
        h.sim.settle();
        CmRej rej = (CmRej) h.sim.net.sent(CmAttribute.REJ).getFirst().mad().message();
        assertThat(rej.reason()).isEqualTo(CmRejectReason.TIMEOUT);
        assertThat(rej.rejectInfo().length()).isEqualTo(8);
        assertThat(typesB()).endsWith(IbCmEventType.REJ_RECEIVED); // found through the remote-ID table
        assertThat(h.passive.state()).isEqualTo(IbCmState.IDLE);
        assertThat(h.a.liveIds()).isZero();
        h.sim.runFor(10_000);
        assertThat(h.sim.net.sent(CmAttribute.REQ)).isEmpty(); // no retries after destroy
    }

    @Test
    void consumerRejectCarriesItsPrivateDataToTheActiveSide() {
        h.reach(IbCmState.MRA_REQ_SENT);
        byte[] data = new byte[CmRej.PRIVATE_DATA_SIZE];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i + 1);
        }
        h.passive.sendRej(CmRejectReason.CONSUMER_DEFINED, Octets.EMPTY, Octets.of(data));
        h.sim.settle();
        IbCmEvent e = h.eventsA.getLast();
        assertThat(e.type()).isEqualTo(IbCmEventType.REJ_RECEIVED);
        CmRej rej = (CmRej) e.message();
        assertThat(rej.reason()).isEqualTo(CmRejectReason.CONSUMER_DEFINED);
        assertThat(rej.privateData().toArray()).isEqualTo(data);
        assertThat(h.active.state()).isEqualTo(IbCmState.IDLE);
    }

    @Test
    void aHandlerRefusingTheReqRejectsWith28WithoutPrivateData() {
        h.passiveAnswer = -22;
        h.listen();
        h.newActive().sendReq(h.reqParam());
        h.sim.settle();
        CmRej rej = (CmRej) h.sim.net.sent(CmAttribute.REJ).getFirst().mad().message();
        assertThat(rej.reason()).isEqualTo(CmRejectReason.CONSUMER_DEFINED);
        assertThat(rej.privateData()).isEqualTo(Octets.zeros(CmRej.PRIVATE_DATA_SIZE));
        assertThat(rej.localCommId()).isZero(); // rejected from REQ_RCVD
        assertThat(h.b.liveIds()).isEqualTo(1); // only the listener is left
    }

    @Test
    void aHandlerOutOfBacklogDropsTheReqSilentlyAndTheRetryGetsThrough() {
        h.passiveAnswer = -IbCmId.ENOMEM;
        h.listen();
        h.newActive().sendReq(h.reqParam());
        h.sim.settle();
        assertThat(h.sim.net.sent(CmAttribute.REJ)).isEmpty();
        assertThat(h.b.liveIds()).isEqualTo(1);
        h.passiveAnswer = 0;
        h.sim.runFor(T.reqTimeoutMillis());
        assertThat(h.passive.state()).isEqualTo(IbCmState.REQ_RCVD);
    }

    @Test
    void sidrResolvesTheRemoteQpAndReusesTheTid() {
        h.reach(IbCmState.SIDR_REQ_RCVD);
        assertThat(h.passive.sendSidrRep(SidrStatus.SUCCESS, 0x66, 0x01234567, Octets.of(new byte[] {5}))).isZero();
        h.sim.settle();
        MadNetwork.Packet rep = h.sim.net.sent(CmAttribute.SIDR_REP).getFirst();
        assertThat(rep.tid()).isEqualTo(h.sim.net.sent(CmAttribute.SIDR_REQ).getFirst().tid());
        CmSidrRep m = (CmSidrRep) h.eventsA.getLast().message();
        assertThat(m.status()).isEqualTo(SidrStatus.SUCCESS);
        assertThat(m.qpn()).isEqualTo(0x66);
        assertThat(m.qKey()).isEqualTo(0x01234567);
        assertThat(h.active.state()).isEqualTo(IbCmState.IDLE);
        assertThat(h.passive.state()).isEqualTo(IbCmState.IDLE);
    }

    @Test
    void sidrWithoutListenerIsUnsupportedAndDuplicatesAreDiscarded() {
        h.newActive().sendSidrReq(h.sidrParam());
        h.sim.settle();
        CmSidrRep m = (CmSidrRep) h.eventsA.getLast().message();
        assertThat(m.status()).isEqualTo(SidrStatus.UNSUPPORTED);

        IbCmHarness h2 = new IbCmHarness(T);
        h2.reach(IbCmState.SIDR_REQ_RCVD);
        h2.sim.runFor(CmTimings.toMillis(T.cmResponseTimeout())); // the SIDR_REQ is retried
        assertThat(h2.sim.net.sent(CmAttribute.SIDR_REQ)).hasSize(2);
        assertThat(h2.eventsB.stream().filter(e -> e.type() == IbCmEventType.SIDR_REQ_RECEIVED)).hasSize(1);
    }

    @Test
    void sidrWithoutAnswerEndsInSidrReqError() {
        h.dropping(p -> true);
        h.newActive().sendSidrReq(h.sidrParam());
        h.sim.runFor(CmTimings.toMillis(T.cmResponseTimeout()) * (1 + T.maxCmRetries()));
        assertThat(typesA()).containsExactly(IbCmEventType.SIDR_REQ_ERROR);
        assertThat(h.sim.net.sent(CmAttribute.SIDR_REQ)).hasSize(1 + T.maxCmRetries());
    }

    @Test
    void destroyingTheSidrPassiveIdRejects() {
        h.reach(IbCmState.SIDR_REQ_RCVD);
        h.passive.destroy();
        h.sim.settle();
        assertThat(((CmSidrRep) h.eventsA.getLast().message()).status()).isEqualTo(SidrStatus.REJECT);
    }

    @Test
    void destroyingEveryIdLeavesNoTimersAndNoIds() {
        for (IbCmState s : IbCmState.values()) {
            IbCmHarness x = new IbCmHarness(T);
            x.reach(s);
            for (IbCmId id : x.a.ids()) {
                id.destroy();
            }
            for (IbCmId id : x.b.ids()) {
                id.destroy();
            }
            x.sim.runFor(60_000);
            assertThat(x.a.liveIds()).as(s.name()).isZero();
            assertThat(x.b.liveIds()).as(s.name()).isZero();
            assertThat(x.sim.timer.pending()).as(s.name()).isZero();
        }
    }
}
