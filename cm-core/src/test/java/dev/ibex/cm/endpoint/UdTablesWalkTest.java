package dev.ibex.cm.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.UdParam;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Walks every cell of the datagram, membership and SIDR-resolution tables against rule-based oracles. */
class UdTablesWalkTest {
    static final Set<Input> COMMANDS = EnumSet.of(Input.START, Input.ACCEPT, Input.REJECT);
    static final InetSocketAddress GROUP = new InetSocketAddress("239.9.9.9", 0);
    static ScriptedGroup g;
    static int port = 10000;

    @BeforeAll
    static void up() {
        g = new ScriptedGroup(1);
    }

    @AfterAll
    static void down() {
        g.close();
    }

    record Outcome(Enum<?> next, List<String> callbacks, boolean refused) {}

    static Stream<Arguments> cells(Class<? extends Enum<?>> states) {
        List<Arguments> out = new ArrayList<>();
        for (Enum<?> s : states.getEnumConstants()) {
            for (Input i : Input.values()) {
                out.add(Arguments.of(s, i));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> datagramCells() {
        return cells(DatagramState.class);
    }

    static Stream<Arguments> membershipCells() {
        return cells(MembershipState.class);
    }

    static Stream<Arguments> resolutionCells() {
        return cells(ResolutionTable.State.class);
    }

    static CmEvent event(dev.ibex.cm.spi.CmId id, Input i, FakeCmId stray, Object context) throws Exception {
        if (i == Input.CONNECT_REQUEST) {
            return new CmEvent(CmEventType.CONNECT_REQUEST, stray, id, 0, null, null, null, null);
        }
        if (!i.isCmEvent()) {
            return null;
        }
        UdParam ud = new UdParam(new byte[] {1}, AhAttr.roce(Gid.of(InetAddress.getByName(
                i == Input.MULTICAST_JOIN ? "239.9.9.9" : "10.0.1.1")), 0, 1), i == Input.MULTICAST_JOIN
                ? UdParam.MULTICAST_QPN : 0x123, UdParam.RDMA_UDP_QKEY);
        int status = i == Input.UNREACHABLE ? 2 : 0;
        return new CmEvent(CmEventType.values()[i.ordinal()], id, null, status, null, null, ud, context);
    }

    static Datagram bound(DatagramLoopbackTest.Rec rec) {
        EventLoop loop = g.loop(0);
        return g.on(loop, () -> {
            Datagram d = Datagram.idle(loop, new InetSocketAddress("10.0.0.1", port++), DatagramOptions.DEFAULT, rec);
            d.input(Input.START, null);
            return d;
        });
    }

    static List<String> since(List<String> events, int before) {
        List<String> copy = new ArrayList<>(events);
        return copy.subList(before, copy.size());
    }

    // ---- datagram ----

    static Outcome datagramOracle(DatagramState s, Input i) {
        if (i == Input.CONNECT_REQUEST) {
            return new Outcome(s, List.of(), false);
        }
        if (COMMANDS.contains(i)) {
            return s == DatagramState.IDLE && i == Input.START
                    ? new Outcome(DatagramState.BOUND, List.of("bound"), false) : new Outcome(s, List.of(), true);
        }
        if (s == DatagramState.CLOSED) {
            return new Outcome(s, List.of(), false);
        }
        if (i == Input.CLOSE) {
            return new Outcome(DatagramState.CLOSED, List.of("closed"), false);
        }
        boolean ends = s == DatagramState.IDLE ? Input.CM_ERRORS.contains(i) || i == Input.FATAL
                : i == Input.DEVICE_REMOVAL || i == Input.FATAL;
        return ends ? new Outcome(DatagramState.CLOSED, List.of("error", "closed"), false)
                : new Outcome(s, List.of(), false);
    }

    @ParameterizedTest(name = "datagram {0} × {1}")
    @MethodSource("datagramCells")
    void datagramCell(DatagramState from, Input input) throws Exception {
        EventLoop loop = g.loop(0);
        DatagramLoopbackTest.Rec rec = new DatagramLoopbackTest.Rec();
        Datagram d = g.on(loop, () -> {
            Datagram x = Datagram.idle(loop, new InetSocketAddress("10.0.0.1", port++), DatagramOptions.DEFAULT, rec);
            if (from == DatagramState.BOUND) {
                x.input(Input.START, null);
            } else if (from == DatagramState.CLOSED) {
                x.input(Input.CLOSE, null);
            }
            return x;
        });
        List<String> events = new ArrayList<>();
        int before = rec.events.size();
        FakeCmId stray = g.on(loop, () -> (FakeCmId) loop.cmChannel().createId(PortSpace.UDP, null));
        CmEvent e = event(d.cmId(), input, stray, null);
        boolean refused = g.on(loop, () -> {
            try {
                d.input(input, e);
                return false;
            } catch (IllegalStateException x) {
                return true;
            }
        });
        Outcome x = datagramOracle(from, input);
        assertThat(refused).isEqualTo(x.refused());
        assertThat(d.state()).isEqualTo(x.next());
        events.addAll(since(rec.events, before));
        assertThat(events.stream().map(s -> s.startsWith("error") ? "error" : s).toList()).isEqualTo(x.callbacks());
        if (input == Input.CONNECT_REQUEST) {
            assertThat(stray.isClosed()).as("a request nobody listens for is rejected").isTrue();
            assertThat(stray.calls()).contains("reject");
        }
        if (x.next() == DatagramState.CLOSED) {
            assertThat(((FakeCmId) d.cmId()).isClosed()).isTrue();
            assertThat(d.qp()).isNull();
        }
        g.on(loop, () -> {
            d.abort();
            stray.close();
            return null;
        });
    }

    // ---- membership ----

    static Outcome membershipOracle(MembershipState s, Input i) {
        if (i == Input.ACCEPT || i == Input.REJECT || (i == Input.START && s != MembershipState.JOINING)) {
            return new Outcome(s, List.of(), true);
        }
        if (s == MembershipState.LEFT) {
            return new Outcome(s, List.of(), false);
        }
        if (i == Input.CLOSE) {
            return new Outcome(MembershipState.LEFT, List.of("left"), false);
        }
        if (i == Input.MULTICAST_ERROR || i == Input.DEVICE_REMOVAL || i == Input.FATAL
                || (s == MembershipState.JOINING && i == Input.TIMEOUT)) {
            return new Outcome(MembershipState.LEFT, List.of("membershipError"), false);
        }
        if (s == MembershipState.JOINING && i == Input.MULTICAST_JOIN) {
            return new Outcome(MembershipState.JOINED, List.of("joined"), false);
        }
        return new Outcome(s, List.of(), false);
    }

    @ParameterizedTest(name = "membership {0} × {1}")
    @MethodSource("membershipCells")
    void membershipCell(MembershipState from, Input input) throws Exception {
        EventLoop loop = g.loop(0);
        DatagramLoopbackTest.Rec rec = new DatagramLoopbackTest.Rec();
        Datagram d = bound(rec);
        Membership m = d.join(GROUP, false);
        CmEvent joinedEvent = event(d.cmId(), Input.MULTICAST_JOIN, null, m);
        g.on(loop, () -> {
            if (from == MembershipState.JOINED) {
                m.input(Input.MULTICAST_JOIN, joinedEvent);
            } else if (from == MembershipState.LEFT) {
                m.input(Input.CLOSE, null);
            }
            return null;
        });
        assertThat(m.state()).isEqualTo(from);
        FakeCmId id = (FakeCmId) d.cmId();
        int before = rec.events.size();
        FakeCmId stray = g.on(loop, () -> (FakeCmId) loop.cmChannel().createId(PortSpace.UDP, null));
        CmEvent e = event(d.cmId(), input, stray, m);
        boolean refused = g.on(loop, () -> {
            try {
                m.input(input, e);
                return false;
            } catch (IllegalStateException x) {
                return true;
            }
        });
        Outcome x = membershipOracle(from, input);
        assertThat(refused).isEqualTo(x.refused());
        assertThat(m.state()).isEqualTo(x.next());
        assertThat(since(rec.events, before)).isEqualTo(x.callbacks());
        if (x.next() == MembershipState.LEFT && from != MembershipState.LEFT) {
            assertThat(id.calls()).contains("leave 239.9.9.9");
            assertThat(d.memberships()).doesNotContain(m);
        }
        g.on(loop, () -> {
            d.abort();
            stray.close();
            return null;
        });
    }

    // ---- SIDR resolution / request ----

    static Outcome resolutionOracle(ResolutionTable.State s, Input i) {
        ResolutionTable.State closed = ResolutionTable.State.CLOSED;
        if (i == Input.CONNECT_REQUEST) {
            return new Outcome(s, List.of(), false);
        }
        if (s == closed) {
            return new Outcome(s, List.of(), COMMANDS.contains(i));
        }
        boolean passive = s == ResolutionTable.State.REQUESTED;
        if (COMMANDS.contains(i)) {
            if (s == ResolutionTable.State.IDLE && i == Input.START) {
                return new Outcome(ResolutionTable.State.ADDR_RESOLVING, List.of(), false);
            }
            if (passive && i != Input.START) {
                return new Outcome(closed, List.of(), false);
            }
            return new Outcome(s, List.of(), true);
        }
        boolean waiting = s != ResolutionTable.State.IDLE;
        if (Input.CM_ERRORS.contains(i) || i == Input.CLOSE || i == Input.FATAL || (waiting && i == Input.TIMEOUT)) {
            return new Outcome(closed, passive ? List.of() : List.of("resolveFailed"), false);
        }
        if (s == ResolutionTable.State.ADDR_RESOLVING && i == Input.ADDR_RESOLVED) {
            return new Outcome(ResolutionTable.State.ROUTE_RESOLVING, List.of(), false);
        }
        if (s == ResolutionTable.State.ROUTE_RESOLVING && i == Input.ROUTE_RESOLVED) {
            return new Outcome(ResolutionTable.State.RESOLVING, List.of(), false);
        }
        if (s == ResolutionTable.State.RESOLVING && i == Input.ESTABLISHED) {
            return new Outcome(closed, List.of("resolved"), false);
        }
        return new Outcome(s, List.of(), false);
    }

    @ParameterizedTest(name = "resolution {0} × {1}")
    @MethodSource("resolutionCells")
    void resolutionCell(ResolutionTable.State from, Input input) throws Exception {
        EventLoop loop = g.loop(0);
        DatagramLoopbackTest.Rec rec = new DatagramLoopbackTest.Rec();
        Datagram d = bound(rec);
        FakeCmId requestId = g.on(loop, () -> ((dev.ibex.cm.fake.FakeEventChannel) loop.cmChannel())
                .requestId(PortSpace.UDP));
        CmEvent request = new CmEvent(CmEventType.CONNECT_REQUEST, requestId, d.cmId(), 0, new byte[] {9}, null, null,
                null);
        Resolution r = g.on(loop, () -> {
            if (from == ResolutionTable.State.REQUESTED) {
                return Resolution.requested(d, request, java.time.Duration.ofMinutes(10)); // TIMEOUT is injected by the walk
            }
            Resolution x = Resolution.active(d, new InetSocketAddress("10.0.1.1", 9000), new byte[0]);
            List<Input> path = switch (from) {
                case IDLE -> List.of();
                case ADDR_RESOLVING -> List.of(Input.START);
                case ROUTE_RESOLVING -> List.of(Input.START, Input.ADDR_RESOLVED);
                case RESOLVING -> List.of(Input.START, Input.ADDR_RESOLVED, Input.ROUTE_RESOLVED);
                case CLOSED -> List.of(Input.CLOSE);
                default -> throw new AssertionError();
            };
            for (Input i : path) {
                x.input(i, event(x.cmId(), i, null, null));
            }
            return x;
        });
        assertThat(r.state()).isEqualTo(from);
        FakeCmId id = (FakeCmId) r.cmId();
        int before = rec.events.size();
        int callsBefore = id.calls().size();
        FakeCmId stray = g.on(loop, () -> (FakeCmId) loop.cmChannel().createId(PortSpace.UDP, null));
        CmEvent e = event(r.cmId(), input, stray, null);
        boolean refused = g.on(loop, () -> {
            try {
                r.input(input, e);
                return false;
            } catch (IllegalStateException x) {
                return true;
            }
        });
        Outcome x = resolutionOracle(from, input);
        assertThat(refused).isEqualTo(x.refused());
        assertThat(r.state()).isEqualTo(x.next());
        assertThat(since(rec.events, before)).isEqualTo(x.callbacks());
        if (x.next() == ResolutionTable.State.CLOSED) {
            assertThat(id.isClosed()).isTrue();
        }
        List<String> calls = id.calls().subList(callsBefore, id.calls().size());
        if (from == ResolutionTable.State.REQUESTED && x.next() == ResolutionTable.State.CLOSED) {
            assertThat(calls).contains(input == Input.ACCEPT ? "accept" : input == Input.REJECTED ? "close"
                    : "reject");
        }
        g.on(loop, () -> {
            r.abort();
            d.abort();
            stray.close();
            return null;
        });
    }
}
