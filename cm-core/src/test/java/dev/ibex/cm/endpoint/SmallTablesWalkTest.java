package dev.ibex.cm.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortSpace;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Walks every cell of the listener and route-lookup tables against oracles written as rules. */
class SmallTablesWalkTest {
    static final Set<Input> COMMANDS = EnumSet.of(Input.START, Input.ACCEPT, Input.REJECT);
    static ScriptedGroup g;

    @BeforeAll
    static void up() {
        g = new ScriptedGroup(1);
    }

    @AfterAll
    static void down() {
        g.close();
    }

    static Stream<Arguments> cells(Class<? extends Enum<?>> states) {
        List<Arguments> out = new ArrayList<>();
        for (Enum<?> s : states.getEnumConstants()) {
            for (Input i : Input.values()) {
                out.add(Arguments.of(s, i));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> listenerCells() {
        return cells(ListenerState.class);
    }

    static Stream<Arguments> lookupCells() {
        return cells(RouteLookup.State.class);
    }

    private static CmEvent event(dev.ibex.cm.spi.CmId id, Input i, FakeCmId stray) {
        if (i == Input.CONNECT_REQUEST) {
            return new CmEvent(CmEventType.CONNECT_REQUEST, stray, id, 0, null, null, null, null);
        }
        return i.isCmEvent() ? new CmEvent(CmEventType.values()[i.ordinal()], id, null,
                i == Input.REJECTED ? 28 : 0, null, null, null, null) : null;
    }

    /** Records listener callbacks. */
    static final class ListenerRecorder implements ListenerHandler {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final List<ConnectionRequest> requests = Collections.synchronizedList(new ArrayList<>());

        @Override public void onConnectionRequest(ConnectionRequest r) { events.add("request"); requests.add(r); }
        @Override public void onListening(Listener l) { events.add("listening"); }
        @Override public void onError(Listener l, Throwable e) { events.add("error"); }
        @Override public void onClosed(Listener l) { events.add("closed"); }
    }

    record Outcome(Enum<?> next, List<String> callbacks, boolean refused) {}

    static Outcome listenerOracle(ListenerState s, Input i) {
        if (i == Input.CONNECT_REQUEST) {
            return new Outcome(s, s == ListenerState.LISTENING ? List.of("request") : List.of(), false);
        }
        if (COMMANDS.contains(i)) {
            return s == ListenerState.IDLE && i == Input.START
                    ? new Outcome(ListenerState.LISTENING, List.of("listening"), false) : new Outcome(s, List.of(), true);
        }
        if (s == ListenerState.CLOSED) {
            return new Outcome(s, List.of(), false);
        }
        if (i == Input.CLOSE) {
            return new Outcome(ListenerState.CLOSED, List.of("closed"), false);
        }
        boolean ends = s == ListenerState.IDLE ? Input.CM_ERRORS.contains(i) || i == Input.FATAL
                : i == Input.DEVICE_REMOVAL || i == Input.FATAL;
        return ends ? new Outcome(ListenerState.CLOSED, List.of("error", "closed"), false)
                : new Outcome(s, List.of(), false);
    }

    @ParameterizedTest(name = "listener {0} × {1}")
    @MethodSource("listenerCells")
    void listenerCell(ListenerState from, Input input) {
        EventLoop loop = g.loop(0);
        ListenerRecorder r = new ListenerRecorder();
        Listener l = g.on(loop, () -> {
            Listener x = Listener.idle(loop, new InetSocketAddress("10.0.0.1", 0),
                    ListenOptions.DEFAULT.withChildrenOnListenerLoop(true), r);
            if (from == ListenerState.LISTENING) {
                x.input(Input.START, null);
            } else if (from == ListenerState.CLOSED) {
                x.input(Input.CLOSE, null);
            }
            return x;
        });
        assertThat(l.state()).isEqualTo(from);
        int before = r.events.size();
        FakeCmId stray = g.on(loop, () -> (FakeCmId) loop.cmChannel().createId(PortSpace.TCP, null));
        boolean refused = g.on(loop, () -> {
            try {
                l.input(input, event(l.cmId(), input, stray));
                return false;
            } catch (IllegalStateException e) {
                return true;
            }
        });
        Outcome x = listenerOracle(from, input);
        assertThat(refused).isEqualTo(x.refused());
        assertThat(l.state()).isEqualTo(x.next());
        assertThat(new ArrayList<>(r.events).subList(before, r.events.size())).isEqualTo(x.callbacks());
        if (input == Input.CONNECT_REQUEST && from != ListenerState.LISTENING) {
            assertThat(stray.isClosed()).isTrue();
            assertThat(stray.calls()).contains("reject");
        }
        if (x.next() == ListenerState.CLOSED) {
            assertThat(((FakeCmId) l.cmId()).isClosed()).isTrue();
        }
        for (ConnectionRequest req : r.requests) {
            assertThat(req.connection().state()).isEqualTo(ConnectionState.REQUESTED);
            req.reject(null);
        }
        g.on(loop, () -> {
            l.abort();
            stray.close();
            return null;
        });
    }

    /** Records route-lookup outcomes. */
    static final class LookupRecorder implements RouteLookup.Callback {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        volatile Throwable error;

        @Override
        public void resolved(RouteLookup l, PathRecord route, DeviceContext device, int port) {
            events.add("resolved");
        }

        @Override
        public void failed(RouteLookup l, Throwable e) {
            events.add("failed");
            error = e;
        }
    }

    static Outcome lookupOracle(RouteLookup.State s, Input i) {
        RouteLookup.State closed = RouteLookup.State.CLOSED;
        if (i == Input.CONNECT_REQUEST || s == closed) {
            return new Outcome(s, List.of(), s == closed && i == Input.START);
        }
        boolean waiting = s != RouteLookup.State.IDLE;
        if (i == Input.START) {
            return waiting ? new Outcome(s, List.of(), true)
                    : new Outcome(RouteLookup.State.ADDR_RESOLVING, List.of(), false);
        }
        if (Input.CM_ERRORS.contains(i) || i == Input.CLOSE || i == Input.FATAL || (waiting && i == Input.TIMEOUT)) {
            return new Outcome(closed, List.of("failed"), false);
        }
        if (s == RouteLookup.State.ADDR_RESOLVING && i == Input.ADDR_RESOLVED) {
            return new Outcome(RouteLookup.State.ROUTE_RESOLVING, List.of(), false);
        }
        if (s == RouteLookup.State.ROUTE_RESOLVING && i == Input.ROUTE_RESOLVED) {
            return new Outcome(closed, List.of("resolved"), false);
        }
        return new Outcome(s, List.of(), false);
    }

    @ParameterizedTest(name = "lookup {0} × {1}")
    @MethodSource("lookupCells")
    void lookupCell(RouteLookup.State from, Input input) {
        EventLoop loop = g.loop(0);
        LookupRecorder r = new LookupRecorder();
        RouteLookup l = g.on(loop, () -> {
            RouteLookup x = new RouteLookup(loop, new InetSocketAddress("10.0.0.1", 0),
                    new InetSocketAddress("10.0.1.1", 0), 100, r);
            x.prepare();
            switch (from) {
                case IDLE -> { }
                case ADDR_RESOLVING -> x.input(Input.START, null);
                case ROUTE_RESOLVING -> {
                    x.input(Input.START, null);
                    x.input(Input.ADDR_RESOLVED, event(x.cmId(), Input.ADDR_RESOLVED, null));
                }
                case CLOSED -> x.input(Input.CLOSE, null);
            }
            return x;
        });
        int before = r.events.size();
        FakeCmId id = (FakeCmId) l.cmId();
        FakeCmId stray = g.on(loop, () -> (FakeCmId) loop.cmChannel().createId(PortSpace.TCP, null));
        boolean refused = g.on(loop, () -> {
            try {
                l.input(input, event(l.cmId(), input, stray));
                return false;
            } catch (IllegalStateException e) {
                return true;
            }
        });
        Outcome x = lookupOracle(from, input);
        assertThat(refused).isEqualTo(x.refused());
        assertThat(l.state()).isEqualTo(x.next());
        assertThat(new ArrayList<>(r.events).subList(before, r.events.size())).isEqualTo(x.callbacks());
        if (x.callbacks().contains("failed")) {
            assertThat(r.error).isInstanceOf(RdmaConnectException.class);
        }
        if (x.next() == RouteLookup.State.CLOSED) {
            assertThat(id.isClosed()).isTrue();
        }
        g.on(loop, () -> {
            l.abort();
            stray.close();
            return null;
        });
    }
}
