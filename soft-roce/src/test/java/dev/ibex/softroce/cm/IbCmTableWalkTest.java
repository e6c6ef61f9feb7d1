package dev.ibex.softroce.cm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.mad.ApStatus;
import dev.ibex.softroce.mad.CmApr;
import dev.ibex.softroce.mad.CmAttribute;
import dev.ibex.softroce.mad.CmDrep;
import dev.ibex.softroce.mad.CmDreq;
import dev.ibex.softroce.mad.CmLap;
import dev.ibex.softroce.mad.CmMessage;
import dev.ibex.softroce.mad.CmMessageKind;
import dev.ibex.softroce.mad.CmMra;
import dev.ibex.softroce.mad.CmPath;
import dev.ibex.softroce.mad.CmRej;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.CmRep;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmRtu;
import dev.ibex.softroce.mad.CmSidrRep;
import dev.ibex.softroce.mad.CmSidrReq;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.SidrStatus;
import dev.ibex.softroce.wire.Gid;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Walks every IB CM state × every input. The expected behaviour is written out below independently of
 * {@link IbCmTable} (from cm.c and wire.md §2.4); each cell is then driven on a real id brought into its state by
 * running the protocol, and the MADs it sends, its TIDs, its next state and its event are checked.
 */
class IbCmTableWalkTest {

    /** Non-default cells: "STATE INPUT -> NEXT ACTION,ACTION !EVENT" or "STATE INPUT EISCONN". */
    private static final String SPEC = """
            IDLE LISTEN -> LISTEN LISTEN_INSERT
            IDLE SEND_REQ -> REQ_SENT SEND_REQ
            IDLE SEND_SIDR_REQ -> SIDR_REQ_SENT SEND_SIDR_REQ
            IDLE DESTROY -> IDLE
            LISTEN RECV_REQ -> LISTEN SPAWN_REQ !REQ_RECEIVED
            LISTEN RECV_SIDR_REQ -> LISTEN SPAWN_SIDR_REQ !SIDR_REQ_RECEIVED
            LISTEN DESTROY -> IDLE LISTEN_REMOVE
            REQ_SENT RECV_MRA_REQ -> MRA_REQ_RCVD EXTEND_SEND !MRA_RECEIVED
            REQ_SENT RECV_REP -> REP_RCVD CANCEL_SEND,RECORD_REP !REP_RECEIVED
            REQ_SENT RECV_REJ -> IDLE CANCEL_SEND !REJ_RECEIVED
            REQ_SENT RECV_REJ_STALE -> TIMEWAIT CANCEL_SEND,ENTER_TIMEWAIT !REJ_RECEIVED
            REQ_SENT RETRIES_EXHAUSTED -> IDLE !REQ_ERROR
            REQ_SENT SEND_REJ -> IDLE CANCEL_SEND,SEND_REJ
            REQ_SENT DESTROY -> IDLE CANCEL_SEND,SEND_REJ_TIMEOUT
            MRA_REQ_RCVD RECV_REP -> REP_RCVD CANCEL_SEND,RECORD_REP !REP_RECEIVED
            MRA_REQ_RCVD RECV_REJ -> IDLE CANCEL_SEND !REJ_RECEIVED
            MRA_REQ_RCVD RECV_REJ_STALE -> TIMEWAIT CANCEL_SEND,ENTER_TIMEWAIT !REJ_RECEIVED
            MRA_REQ_RCVD RETRIES_EXHAUSTED -> IDLE !REQ_ERROR
            MRA_REQ_RCVD SEND_REJ -> IDLE CANCEL_SEND,SEND_REJ
            MRA_REQ_RCVD DESTROY -> IDLE CANCEL_SEND,SEND_REJ_TIMEOUT
            REQ_RCVD SEND_REP -> REP_SENT SEND_REP
            REQ_RCVD SEND_MRA -> MRA_REQ_SENT SEND_MRA
            REQ_RCVD DELAY_MRA -> MRA_REQ_SENT PREPARE_MRA
            REQ_RCVD SEND_REJ -> IDLE SEND_REJ
            REQ_RCVD RECV_REJ -> IDLE !REJ_RECEIVED
            REQ_RCVD RECV_REJ_STALE -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            REQ_RCVD DESTROY -> IDLE SEND_REJ_CONSUMER
            MRA_REQ_SENT RECV_REQ -> MRA_REQ_SENT RESEND_MRA
            MRA_REQ_SENT SEND_REP -> REP_SENT SEND_REP
            MRA_REQ_SENT SEND_REJ -> IDLE SEND_REJ
            MRA_REQ_SENT RECV_REJ -> IDLE !REJ_RECEIVED
            MRA_REQ_SENT RECV_REJ_STALE -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            MRA_REQ_SENT DESTROY -> IDLE SEND_REJ_CONSUMER
            REP_SENT RECV_RTU -> ESTABLISHED CANCEL_SEND !RTU_RECEIVED
            REP_SENT ESTABLISH -> ESTABLISHED CANCEL_SEND !USER_ESTABLISHED
            REP_SENT RECV_MRA_REP -> MRA_REP_RCVD EXTEND_SEND !MRA_RECEIVED
            REP_SENT RECV_REJ -> IDLE CANCEL_SEND !REJ_RECEIVED
            REP_SENT RECV_REJ_STALE -> TIMEWAIT CANCEL_SEND,ENTER_TIMEWAIT !REJ_RECEIVED
            REP_SENT RECV_DREQ -> DREQ_RCVD CANCEL_SEND,RECORD_DREQ_TID !DREQ_RECEIVED
            REP_SENT RETRIES_EXHAUSTED -> IDLE !REP_ERROR
            REP_SENT SEND_REJ -> TIMEWAIT CANCEL_SEND,SEND_REJ,ENTER_TIMEWAIT
            REP_SENT DESTROY -> IDLE CANCEL_SEND,SEND_REJ_CONSUMER
            MRA_REP_RCVD RECV_RTU -> ESTABLISHED CANCEL_SEND !RTU_RECEIVED
            MRA_REP_RCVD ESTABLISH -> ESTABLISHED CANCEL_SEND !USER_ESTABLISHED
            MRA_REP_RCVD RECV_REJ -> IDLE CANCEL_SEND !REJ_RECEIVED
            MRA_REP_RCVD RECV_REJ_STALE -> TIMEWAIT CANCEL_SEND,ENTER_TIMEWAIT !REJ_RECEIVED
            MRA_REP_RCVD RECV_DREQ -> DREQ_RCVD CANCEL_SEND,RECORD_DREQ_TID !DREQ_RECEIVED
            MRA_REP_RCVD RETRIES_EXHAUSTED -> IDLE !REP_ERROR
            MRA_REP_RCVD SEND_REJ -> TIMEWAIT CANCEL_SEND,SEND_REJ,ENTER_TIMEWAIT
            MRA_REP_RCVD DESTROY -> IDLE CANCEL_SEND,SEND_REJ_CONSUMER
            REP_RCVD SEND_RTU -> ESTABLISHED SEND_RTU
            REP_RCVD SEND_MRA -> MRA_REP_SENT SEND_MRA
            REP_RCVD DELAY_MRA -> MRA_REP_SENT PREPARE_MRA
            REP_RCVD SEND_REJ -> IDLE SEND_REJ
            REP_RCVD RECV_REJ -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            REP_RCVD RECV_REJ_STALE -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            REP_RCVD DESTROY -> IDLE SEND_REJ_CONSUMER
            MRA_REP_SENT RECV_REP -> MRA_REP_SENT RESEND_MRA
            MRA_REP_SENT SEND_RTU -> ESTABLISHED SEND_RTU
            MRA_REP_SENT SEND_REJ -> IDLE SEND_REJ
            MRA_REP_SENT RECV_REJ -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            MRA_REP_SENT RECV_REJ_STALE -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            MRA_REP_SENT DESTROY -> IDLE SEND_REJ_CONSUMER
            ESTABLISHED RECV_REP -> ESTABLISHED RESEND_RTU
            ESTABLISHED SEND_DREQ -> DREQ_SENT SEND_DREQ
            ESTABLISHED RECV_DREQ -> DREQ_RCVD RECORD_DREQ_TID !DREQ_RECEIVED
            ESTABLISHED RECV_REJ -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            ESTABLISHED RECV_REJ_STALE -> TIMEWAIT ENTER_TIMEWAIT !REJ_RECEIVED
            ESTABLISHED ESTABLISH EISCONN
            ESTABLISHED DESTROY -> IDLE SEND_DREQ_ONCE
            DREQ_SENT RECV_DREP -> TIMEWAIT CANCEL_SEND,ENTER_TIMEWAIT !DREP_RECEIVED
            DREQ_SENT RECV_DREQ -> DREQ_RCVD CANCEL_SEND,RECORD_DREQ_TID !DREQ_RECEIVED
            DREQ_SENT RETRIES_EXHAUSTED -> TIMEWAIT ENTER_TIMEWAIT !DREQ_ERROR
            DREQ_SENT RECV_REJ -> TIMEWAIT CANCEL_SEND,ENTER_TIMEWAIT !REJ_RECEIVED
            DREQ_SENT RECV_REJ_STALE -> TIMEWAIT CANCEL_SEND,ENTER_TIMEWAIT !REJ_RECEIVED
            DREQ_SENT DESTROY -> IDLE CANCEL_SEND
            DREQ_RCVD SEND_DREP -> TIMEWAIT SEND_DREP,ENTER_TIMEWAIT
            DREQ_RCVD RECV_DREP -> TIMEWAIT ENTER_TIMEWAIT !DREP_RECEIVED
            DREQ_RCVD DESTROY -> IDLE SEND_DREP
            TIMEWAIT RECV_REQ -> TIMEWAIT SEND_REJ_STALE
            TIMEWAIT RECV_DREQ -> TIMEWAIT RESEND_DREP
            TIMEWAIT TIMEWAIT_EXPIRED -> IDLE !TIMEWAIT_EXIT
            TIMEWAIT DESTROY -> IDLE CANCEL_TIMEWAIT
            SIDR_REQ_SENT RECV_SIDR_REP -> IDLE CANCEL_SEND !SIDR_REP_RECEIVED
            SIDR_REQ_SENT RETRIES_EXHAUSTED -> IDLE !SIDR_REQ_ERROR
            SIDR_REQ_SENT DESTROY -> IDLE CANCEL_SEND
            SIDR_REQ_RCVD SEND_SIDR_REP -> IDLE SEND_SIDR_REP
            SIDR_REQ_RCVD DESTROY -> IDLE SEND_SIDR_REP_REJECT
            """;

    private static final Map<IbCmState, Map<IbCmInput, IbCmTransition>> EXPECTED = parse(SPEC);

    private static Map<IbCmState, Map<IbCmInput, IbCmTransition>> parse(String spec) {
        Map<IbCmState, Map<IbCmInput, IbCmTransition>> m = new EnumMap<>(IbCmState.class);
        for (IbCmState s : IbCmState.values()) {
            Map<IbCmInput, IbCmTransition> row = new EnumMap<>(IbCmInput.class);
            for (IbCmInput in : IbCmInput.values()) {
                row.put(in, IbCmTransition.unchanged(s, in.kind() == IbCmInput.Kind.CALL
                        ? IbCmTransition.Outcome.INVALID : IbCmTransition.Outcome.DISCARD));
            }
            m.put(s, row);
        }
        for (String line : spec.strip().split("\n")) {
            String[] f = line.strip().split("\\s+");
            IbCmState from = IbCmState.valueOf(f[0]);
            IbCmInput in = IbCmInput.valueOf(f[1]);
            if (f[2].equals("EISCONN")) {
                m.get(from).put(in, IbCmTransition.unchanged(from, IbCmTransition.Outcome.ALREADY_CONNECTED));
                continue;
            }
            IbCmState to = IbCmState.valueOf(f[3]);
            List<IbCmAction> actions = new ArrayList<>();
            IbCmEventType event = null;
            for (int i = 4; i < f.length; i++) {
                if (f[i].startsWith("!")) {
                    event = IbCmEventType.valueOf(f[i].substring(1));
                } else {
                    for (String a : f[i].split(",")) {
                        actions.add(IbCmAction.valueOf(a));
                    }
                }
            }
            m.get(from).put(in, IbCmTransition.apply(to, event, actions.toArray(IbCmAction[]::new)));
        }
        return m;
    }

    @Test
    void productionTableEqualsTheSpecInEveryCell() {
        int cells = 0;
        for (IbCmState s : IbCmState.values()) {
            for (IbCmInput in : IbCmInput.values()) {
                assertThat(IbCmTable.lookup(s, in)).as(s + " × " + in).isEqualTo(EXPECTED.get(s).get(in));
                cells++;
            }
        }
        assertThat(cells).isEqualTo(IbCmTable.size()).isEqualTo(16 * 29);
        assertThat(IbCmTable.appliedCells()).isEqualTo(SPEC.strip().split("\n").length);
    }

    static Stream<Arguments> cells() {
        List<Arguments> all = new ArrayList<>();
        for (IbCmState s : IbCmState.values()) {
            for (IbCmInput in : IbCmInput.values()) {
                all.add(Arguments.of(s, in));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} × {1}")
    @MethodSource("cells")
    void everyCellBehavesAsSpecified(IbCmState state, IbCmInput input) {
        IbCmHarness h = new IbCmHarness(CmTimings.FAST);
        IbCmId id = h.reach(state);
        assertThat(id.state()).isEqualTo(state);
        h.sim.net.clearLog();
        h.eventsA.clear();
        h.eventsB.clear();
        IbCmTransition expected = EXPECTED.get(state).get(input);

        int ret = drive(h, id, input);

        switch (expected.outcome()) {
            case INVALID -> assertThat(ret).isEqualTo(-IbCmId.EINVAL);
            case ALREADY_CONNECTED -> assertThat(ret).isEqualTo(-IbCmId.EISCONN);
            default -> assertThat(ret).isZero();
        }
        if (input != IbCmInput.DESTROY) {
            assertThat(id.state()).as("next state").isEqualTo(expected.next());
        }
        // MADs the step put on the wire, with their TIDs.
        List<MadNetwork.Packet> sent = h.sim.net.log();
        assertThat(sent.stream().map(MadNetwork.Packet::attribute).toList()).as("MADs sent")
                .isEqualTo(expectedMads(expected));
        for (MadNetwork.Packet p : sent) {
            switch (p.attribute()) {
                case REQ, DREQ, SIDR_REQ -> assertThat((int) p.tid()).as("new TID of " + p).isEqualTo(id.localId());
                case SIDR_REP, REJ, REP, RTU, MRA, DREP -> {
                    IbCmId sender = expected.actions().contains(IbCmAction.SPAWN_REQ) ? h.passive : id;
                    assertThat(p.tid()).as("reused TID of " + p).isEqualTo(sender.transactionId());
                }
                default -> throw new AssertionError(p);
            }
            if (p.mad().message() instanceof CmRej rej) {
                assertThat(rej.reason()).isEqualTo(expectedRejReason(expected));
            }
            if (p.mad().message() instanceof CmSidrRep rep) {
                assertThat(rep.status()).isEqualTo(expected.actions().contains(IbCmAction.SEND_SIDR_REP_REJECT)
                        ? SidrStatus.REJECT : SidrStatus.SUCCESS);
            }
        }
        // The event, on the id itself or on the child a listener spawned.
        List<IbCmEvent> events = new ArrayList<>(h.eventsA);
        events.addAll(h.eventsB);
        if (expected.event() == null) {
            assertThat(events).as("events").isEmpty();
        } else {
            assertThat(events).as("events").hasSize(1);
            IbCmEvent e = events.getFirst();
            assertThat(e.type()).isEqualTo(expected.event());
            if (expected.actions().contains(IbCmAction.SPAWN_REQ)
                    || expected.actions().contains(IbCmAction.SPAWN_SIDR_REQ)) {
                assertThat(e.listenId()).isSameAs(id);
                assertThat(e.id().state()).isEqualTo(expected.actions().contains(IbCmAction.SPAWN_REQ)
                        ? IbCmState.REQ_RCVD : IbCmState.SIDR_REQ_RCVD);
            } else {
                assertThat(e.id()).isSameAs(id);
            }
        }
        // Timers: an outstanding request or timewait keeps one armed; CANCEL_* and IDLE leave none for the id.
        if (expected.actions().contains(IbCmAction.ENTER_TIMEWAIT)) {
            h.eventsA.clear();
            h.eventsB.clear();
            h.sim.runFor(CmTimings.toMillis(CmTimings.FAST.ackTimeout()) * 2);
            assertThat(id.state()).isEqualTo(IbCmState.IDLE);
        }
    }

    private static CmRejectReason expectedRejReason(IbCmTransition t) {
        for (IbCmAction a : t.actions()) {
            switch (a) {
                case SEND_REJ -> {
                    return CmRejectReason.CONSUMER_DEFINED;
                }
                case SEND_REJ_TIMEOUT -> {
                    return CmRejectReason.TIMEOUT;
                }
                case SEND_REJ_CONSUMER -> {
                    return CmRejectReason.CONSUMER_DEFINED;
                }
                case SEND_REJ_STALE -> {
                    return CmRejectReason.STALE_CONN;
                }
                default -> {
                }
            }
        }
        throw new AssertionError("no REJ in " + t);
    }

    private static List<CmAttribute> expectedMads(IbCmTransition t) {
        List<CmAttribute> mads = new ArrayList<>();
        for (IbCmAction a : t.actions()) {
            switch (a) {
                case SEND_REQ -> mads.add(CmAttribute.REQ);
                case SEND_REP -> mads.add(CmAttribute.REP);
                case SEND_RTU, RESEND_RTU -> mads.add(CmAttribute.RTU);
                case SEND_REJ, SEND_REJ_TIMEOUT, SEND_REJ_CONSUMER, SEND_REJ_STALE -> mads.add(CmAttribute.REJ);
                case SEND_MRA, RESEND_MRA -> mads.add(CmAttribute.MRA);
                case SEND_DREQ, SEND_DREQ_ONCE -> mads.add(CmAttribute.DREQ);
                case SEND_DREP, RESEND_DREP -> mads.add(CmAttribute.DREP);
                case SEND_SIDR_REQ -> mads.add(CmAttribute.SIDR_REQ);
                case SEND_SIDR_REP, SEND_SIDR_REP_REJECT -> mads.add(CmAttribute.SIDR_REP);
                default -> {
                }
            }
        }
        return mads;
    }

    /** Feeds {@code input} to {@code id}: consumer calls through the API, messages and timers through the engine. */
    private static int drive(IbCmHarness h, IbCmId id, IbCmInput input) {
        MadNetwork.Endpoint port = h.portOf(id);
        int peer = id.remoteId() != 0 ? id.remoteId() : 0xABCD;
        long tid = 0x0000_0009_0000_0001L;
        CmMessage m = switch (input) {
            case LISTEN -> null;
            case SEND_REQ, SEND_REP, SEND_RTU, SEND_REJ, SEND_MRA, DELAY_MRA, SEND_DREQ, SEND_DREP, SEND_SIDR_REQ,
                    SEND_SIDR_REP, ESTABLISH, DESTROY, RETRIES_EXHAUSTED, TIMEWAIT_EXPIRED -> null;
            case RECV_REQ -> new CmReq(peer, 0, IbCmHarness.SID, 0x77, 0, 0x33, 1, 0, 1, 0, 20, 0, false, 0x1111, 20, 7,
                    0xFFFF, 3, false, 7, 15, false, 0, new CmPath(0xFFFF, 0xFFFF, Gid.of(h.peerOf(id)),
                            Gid.of(port.address()), 0, 0, 0, 64, 0, false, 13), CmPath.ABSENT, false, Octets.EMPTY);
            case RECV_MRA_REQ -> new CmMra(peer, id.localId(), CmMessageKind.REQ, 14, Octets.EMPTY);
            case RECV_MRA_REP -> new CmMra(peer, id.localId(), CmMessageKind.REP, 14, Octets.EMPTY);
            case RECV_MRA_OTHER -> new CmMra(peer, id.localId(), CmMessageKind.OTHER, 14, Octets.EMPTY);
            case RECV_REJ -> new CmRej(peer, id.localId(), CmMessageKind.OTHER, CmRejectReason.CONSUMER_DEFINED,
                    Octets.EMPTY, Octets.EMPTY);
            case RECV_REJ_STALE -> new CmRej(peer, id.localId(), CmMessageKind.OTHER, CmRejectReason.STALE_CONN,
                    Octets.EMPTY, Octets.EMPTY);
            case RECV_REP -> new CmRep(peer, id.localId(), 0, 0x44, 0, 0x2222, 0, 1, 1, 10, 0, false, 7, false, 0x77,
                    Octets.EMPTY);
            case RECV_RTU -> new CmRtu(peer, id.localId(), Octets.EMPTY);
            case RECV_DREQ -> new CmDreq(peer, id.localId(), 0, Octets.EMPTY);
            case RECV_DREP -> new CmDrep(peer, id.localId(), Octets.EMPTY);
            case RECV_SIDR_REQ -> new CmSidrReq(0x777, 0xFFFF, IbCmHarness.SID, Octets.EMPTY);
            case RECV_SIDR_REP -> new CmSidrRep(id.localId(), SidrStatus.SUCCESS, 0, 0x55, IbCmHarness.SID,
                    0x01234567, Octets.EMPTY, Octets.EMPTY);
            case RECV_LAP -> new CmLap(peer, id.localId(), 0, 20, CmPath.ABSENT, Octets.EMPTY);
            case RECV_APR -> new CmApr(peer, id.localId(), ApStatus.SUCCESS, Octets.EMPTY, Octets.EMPTY);
        };
        return switch (input) {
            case LISTEN -> id.listen(port, IbCmHarness.SID + 1);
            case SEND_REQ -> id.sendReq(h.reqParam());
            case SEND_REP -> id.sendRep(h.repParam());
            case SEND_RTU -> id.sendRtu(Octets.EMPTY);
            case SEND_REJ -> id.sendRej(CmRejectReason.CONSUMER_DEFINED, Octets.EMPTY, Octets.of(new byte[] {9}));
            case SEND_MRA -> id.sendMra(14, false, Octets.EMPTY);
            case DELAY_MRA -> id.sendMra(14, true, Octets.EMPTY);
            case SEND_DREQ -> id.sendDreq(Octets.EMPTY);
            case SEND_DREP -> id.sendDrep(Octets.EMPTY);
            case SEND_SIDR_REQ -> id.sendSidrReq(h.sidrParam());
            case SEND_SIDR_REP -> id.sendSidrRep(SidrStatus.SUCCESS, 0x66, 0x01234567, Octets.EMPTY);
            case ESTABLISH -> id.establish();
            case DESTROY -> {
                id.destroy();
                yield 0;
            }
            default -> h.a.locked(() -> id.apply(input, new IbCm.Stimulus(m, tid, port, h.peerOf(id), null)));
        };
    }
}
