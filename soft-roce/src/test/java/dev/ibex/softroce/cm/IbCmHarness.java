package dev.ibex.softroce.cm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.softroce.mad.CmAttribute;
import dev.ibex.softroce.mad.CmMad;
import dev.ibex.softroce.mad.CmMessage;
import dev.ibex.softroce.mad.CmMessageKind;
import dev.ibex.softroce.mad.CmMra;
import dev.ibex.softroce.mad.Octets;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Two IB CMs ("A" active at 10.0.0.1, "B" passive at 10.0.0.2) on a {@link Sim}, with recorded events and recipes
 * that bring an id into each IB CM state by running the real protocol.
 */
final class IbCmHarness {
    static final long SID = 0x0000_0000_0106_0000L | 7471;
    static final InetAddress IP_A = Sim.ip("10.0.0.1");
    static final InetAddress IP_B = Sim.ip("10.0.0.2");
    static final long GUID_A = 0x0002_c903_00aa_0001L;
    static final long GUID_B = 0x0002_c903_00bb_0002L;

    final Sim sim = new Sim();
    final CmTimings timings;
    final IbCm a;
    final IbCm b;
    final MadNetwork.Endpoint pa;
    final MadNetwork.Endpoint pb;
    final List<IbCmEvent> eventsA = new ArrayList<>();
    final List<IbCmEvent> eventsB = new ArrayList<>();
    /** What B's handler answers (0 accepts the event). */
    int passiveAnswer;
    IbCmId listener;
    IbCmId passive;
    IbCmId active;

    IbCmHarness(CmTimings timings) {
        this.timings = timings;
        a = sim.cm(timings);
        b = sim.cm(timings);
        pa = sim.net.attach(IP_A, GUID_A, a);
        pb = sim.net.attach(IP_B, GUID_B, b);
    }

    IbCmHandler handlerA() {
        return e -> {
            eventsA.add(e);
            return 0;
        };
    }

    IbCmHandler handlerB() {
        return e -> {
            eventsB.add(e);
            if (e.type() == IbCmEventType.REQ_RECEIVED || e.type() == IbCmEventType.SIDR_REQ_RECEIVED) {
                passive = e.id();
            }
            return passiveAnswer;
        };
    }

    IbCmId listen() {
        listener = b.createId(handlerB(), "listener");
        assertThat(listener.listen(pb, SID)).isZero();
        return listener;
    }

    IbCmId newActive() {
        active = a.createId(handlerA(), "active");
        return active;
    }

    PathRecord path() {
        return new PathRecord(Gid.of(IP_A), Gid.of(IP_B), 0, 0, 0x1d2f, 64, 0, 0xFFFF, 0, Mtu.MTU_1024, 0,
                timings.packetLifeTime());
    }

    IbCmReqParam reqParam() {
        return new IbCmReqParam(pa, IP_B, SID, path(), 0x11, 0x123456, 1, 1, false, 7, 7, false,
                Octets.of(new byte[] {1, 2, 3}));
    }

    IbCmRepParam repParam() {
        return new IbCmRepParam(0x22, 0x654321, 1, 1, false, 7, false, Octets.of(new byte[] {4, 5, 6}));
    }

    IbCmSidrReqParam sidrParam() {
        return new IbCmSidrReqParam(pa, IP_B, SID, 0xFFFF, Octets.of(new byte[] {7}));
    }

    void dropping(Predicate<MadNetwork.Packet> p) {
        sim.net.drop(p);
    }

    static Predicate<MadNetwork.Packet> attribute(CmAttribute attribute) {
        return p -> p.attribute() == attribute;
    }

    /** Injects {@code message} into the CM at {@code to} as if sent from {@code from}. */
    void inject(IbCm to, MadNetwork.Endpoint port, InetAddress from, long tid, CmMessage message) {
        to.receive(port, from, CmMad.send(tid, message));
    }

    /** Runs the protocol until an id is in {@code state}; returns that id. The world is quiet afterwards. */
    IbCmId reach(IbCmState state) {
        switch (state) {
            case IDLE -> {
                return newActive();
            }
            case LISTEN -> {
                return listen();
            }
            case REQ_SENT -> {
                listen();
                dropping(attribute(CmAttribute.REQ));
                assertThat(newActive().sendReq(reqParam())).isZero();
                sim.settle();
                dropping(p -> false);
                return active;
            }
            case MRA_REQ_RCVD -> {
                reach(IbCmState.REQ_SENT);
                inject(a, pa, IP_B, active.transactionId(),
                        new CmMra(0xB0B, active.localId(), CmMessageKind.REQ, timings.mraServiceTimeout(), Octets.EMPTY));
                return active;
            }
            case REQ_RCVD -> {
                listen();
                assertThat(newActive().sendReq(reqParam())).isZero();
                sim.settle();
                return passive;
            }
            case MRA_REQ_SENT -> {
                reach(IbCmState.REQ_RCVD);
                assertThat(passive.sendMra(timings.mraServiceTimeout(), true, Octets.EMPTY)).isZero();
                return passive;
            }
            case REP_SENT -> {
                reach(IbCmState.REQ_RCVD);
                dropping(attribute(CmAttribute.REP));
                assertThat(passive.sendRep(repParam())).isZero();
                sim.settle();
                dropping(p -> false);
                return passive;
            }
            case MRA_REP_RCVD -> {
                reach(IbCmState.REP_SENT);
                inject(b, pb, IP_A, passive.transactionId(), new CmMra(active.localId(), passive.localId(),
                        CmMessageKind.REP, timings.mraServiceTimeout(), Octets.EMPTY));
                return passive;
            }
            case REP_RCVD -> {
                reach(IbCmState.REQ_RCVD);
                assertThat(passive.sendRep(repParam())).isZero();
                sim.settle();
                return active;
            }
            case MRA_REP_SENT -> {
                reach(IbCmState.REP_RCVD);
                assertThat(active.sendMra(timings.mraServiceTimeout(), true, Octets.EMPTY)).isZero();
                return active;
            }
            case ESTABLISHED -> {
                reach(IbCmState.REP_RCVD);
                assertThat(active.sendRtu(Octets.EMPTY)).isZero();
                sim.settle();
                return active;
            }
            case DREQ_SENT -> {
                reach(IbCmState.ESTABLISHED);
                dropping(attribute(CmAttribute.DREQ));
                assertThat(active.sendDreq(Octets.EMPTY)).isZero();
                sim.settle();
                dropping(p -> false);
                return active;
            }
            case DREQ_RCVD -> {
                reach(IbCmState.ESTABLISHED);
                assertThat(active.sendDreq(Octets.EMPTY)).isZero();
                sim.settle();
                return passive;
            }
            case TIMEWAIT -> {
                reach(IbCmState.DREQ_RCVD);
                assertThat(passive.sendDrep(Octets.EMPTY)).isZero();
                sim.settle();
                return passive;
            }
            case SIDR_REQ_SENT -> {
                listen();
                dropping(attribute(CmAttribute.SIDR_REQ));
                assertThat(newActive().sendSidrReq(sidrParam())).isZero();
                sim.settle();
                dropping(p -> false);
                return active;
            }
            case SIDR_REQ_RCVD -> {
                listen();
                assertThat(newActive().sendSidrReq(sidrParam())).isZero();
                sim.settle();
                return passive;
            }
        }
        throw new AssertionError(state);
    }

    MadNetwork.Endpoint portOf(IbCmId id) {
        return id.port() != null ? (MadNetwork.Endpoint) id.port() : pb;
    }

    InetAddress peerOf(IbCmId id) {
        return portOf(id) == pa ? IP_B : IP_A;
    }
}
