package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaConnectException.Reason;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.PortSpace;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Walks every cell of the connection state table on a real connection over the scripted fake: reach the state,
 * feed the input, compare the next state and the callbacks with an oracle written independently of the table
 * (as rules, following librdmacm semantics), and check that reaching CLOSED released the id and the QP.
 */
class ConnectionTableWalkTest {
    static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.1", 7471);
    static final Set<ConnectionState> PRE = EnumSet.of(IDLE, ADDR_RESOLVING, ROUTE_RESOLVING, CONNECTING, REQUESTED);
    static final Map<Input, Reason> REASONS = Map.of(Input.ADDR_ERROR, Reason.ADDR_ERROR, Input.ROUTE_ERROR,
            Reason.ROUTE_ERROR, Input.CONNECT_ERROR, Reason.CONNECT_ERROR, Input.UNREACHABLE, Reason.UNREACHABLE,
            Input.REJECTED, Reason.REJECTED, Input.DISCONNECTED, Reason.DISCONNECTED, Input.DEVICE_REMOVAL,
            Reason.DEVICE_REMOVAL, Input.ADDR_CHANGE, Reason.ADDR_CHANGE, Input.TIMEOUT, Reason.TIMEOUT, Input.CLOSE,
            Reason.CLOSED);

    static ScriptedGroup g;
    static Listener listener;
    // Lock-free: the listener callback runs on a loop thread under BlockHound, where a contended
    // LinkedBlockingQueue lock would park it (a real bug this test once hit on a loaded machine).
    static final Queue<ConnectionRequest> requests = new ConcurrentLinkedQueue<>();
    static int cellsWalked;

    @BeforeAll
    static void up() throws Exception {
        g = new ScriptedGroup(2);
        java.util.concurrent.CompletableFuture<Listener> ready = new java.util.concurrent.CompletableFuture<>();
        listener = Listener.listen(g.loop(0), new InetSocketAddress("10.0.0.1", 7471),
                // The walk injects TIMEOUT itself; a real request timeout could fire on a loaded machine and close a
                // REQUESTED connection before its cell runs.
                ListenOptions.DEFAULT.withChildrenOnListenerLoop(true).withRequestTimeout(java.time.Duration.ofMinutes(10)),
                new ListenerHandler() {
                    @Override
                    public void onConnectionRequest(ConnectionRequest r) {
                        requests.add(r);
                    }

                    @Override
                    public void onListening(Listener l) {
                        ready.complete(l);
                    }
                });
        ready.get(5, TimeUnit.SECONDS);
    }

    @AfterAll
    static void down() {
        listener.close();
        assertThat(cellsWalked).isEqualTo(ConnectionTable.TABLE.size());
        g.close();
    }

    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        for (ConnectionState s : ConnectionState.values()) {
            for (Input i : Input.values()) {
                out.add(Arguments.of(s, i));
            }
        }
        return out.stream();
    }

    /** What the oracle expects: the next state, the callbacks in order, or a refusal. */
    record Expected(ConnectionState next, List<String> callbacks, Reason reason, boolean refused, String call) {
        static Expected stay(ConnectionState s) {
            return new Expected(s, List.of(), null, false, null);
        }

        static Expected refuse(ConnectionState s) {
            return new Expected(s, List.of(), null, true, null);
        }
    }

    static Expected expected(ConnectionState s, Input i) {
        if (i == Input.CONNECT_REQUEST) {
            return Expected.stay(s); // a stray request is rejected, the connection untouched
        }
        boolean command = i == Input.START || i == Input.ACCEPT || i == Input.REJECT;
        if (s == CLOSED) {
            return command ? Expected.refuse(s) : Expected.stay(s);
        }
        if (command) {
            if (s == IDLE && i == Input.START) {
                return new Expected(ADDR_RESOLVING, List.of(), null, false, "resolveAddr");
            }
            if (s == REQUESTED && i == Input.ACCEPT) {
                return new Expected(CONNECTING, List.of(), null, false, "accept");
            }
            if (s == REQUESTED && i == Input.REJECT) {
                return new Expected(CLOSED, List.of("closed"), null, false, "reject");
            }
            return Expected.refuse(s);
        }
        if (PRE.contains(s)) {
            if (REASONS.containsKey(i) || i == Input.FATAL) {
                Reason r = i == Input.FATAL ? Reason.CONNECT_ERROR : REASONS.get(i);
                String call = s == REQUESTED && i != Input.REJECTED ? "reject" : null;
                return new Expected(CLOSED, List.of("error", "closed"), r, false, call);
            }
            if (s == ADDR_RESOLVING && i == Input.ADDR_RESOLVED) {
                return new Expected(ROUTE_RESOLVING, List.of(), null, false, "resolveRoute");
            }
            if (s == ROUTE_RESOLVING && i == Input.ROUTE_RESOLVED) {
                return new Expected(CONNECTING, List.of(), null, false, "connect");
            }
            if (s == CONNECTING && (i == Input.ESTABLISHED || i == Input.CONNECT_RESPONSE)) {
                return new Expected(ESTABLISHED, List.of("established"), null, false,
                        i == Input.CONNECT_RESPONSE ? "establish" : null);
            }
            return Expected.stay(s);
        }
        if (s == ESTABLISHED) {
            return switch (i) {
                case DISCONNECTED -> new Expected(DISCONNECTING, List.of("disconnected"), null, false, "disconnect");
                case CLOSE -> new Expected(DISCONNECTING, List.of(), null, false, "disconnect");
                case DEVICE_REMOVAL -> new Expected(CLOSED, List.of("error", "closed"), Reason.DEVICE_REMOVAL, false,
                        null);
                case ADDR_CHANGE -> new Expected(ESTABLISHED, List.of("addressChange"), null, false, null);
                case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED -> new Expected(DISCONNECTING,
                        List.of("error"), REASONS.get(i), false, "disconnect");
                case FATAL -> new Expected(DISCONNECTING, List.of("error"), null, false, "disconnect");
                default -> Expected.stay(s);
            };
        }
        // DISCONNECTING
        return switch (i) {
            case DRAINED, TIMEOUT, DEVICE_REMOVAL -> new Expected(CLOSED, List.of("closed"), null, false, null);
            default -> Expected.stay(s);
        };
    }

    private static CmEvent event(Connection c, Input i) {
        CmEventType t = CmEventType.values()[i.ordinal()];
        int status = switch (i) {
            case REJECTED -> 28;
            case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR -> -110;
            default -> 0;
        };
        byte[] data = i == Input.REJECTED ? "no".getBytes(StandardCharsets.UTF_8) : null;
        ConnParam conn = i == Input.ESTABLISHED ? ConnParam.DEFAULT : null;
        return new CmEvent(t, c.cmId(), null, status, data, conn, null, null);
    }

    private static Connection reach(ConnectionState target, Recorder r) throws Exception {
        EventLoop loop = g.loop(0);
        if (target == REQUESTED) {
            listenerId().injectRequest("req".getBytes(StandardCharsets.UTF_8), new InetSocketAddress("10.0.1.1", 5000));
            ConnectionRequest req = org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .pollInterval(java.time.Duration.ofMillis(1)).until(requests::poll, java.util.Objects::nonNull);
            Connection c = req.connection();
            g.on(loop, () -> {
                c.handler(r);
                return null;
            });
            return c;
        }
        return g.on(loop, () -> {
            // a window of its own: posted receives keep a closing connection in DISCONNECTING until they flush
            Connection c = Connection.idle(loop, PEER, ConnectionOptions.DEFAULT.withReceiveWindow(2)
                    .withReceiveMode(ReceiveMode.WINDOW), r);
            List<Input> path = switch (target) {
                case IDLE -> List.of();
                case ADDR_RESOLVING -> List.of(Input.START);
                case ROUTE_RESOLVING -> List.of(Input.START, Input.ADDR_RESOLVED);
                case CONNECTING -> List.of(Input.START, Input.ADDR_RESOLVED, Input.ROUTE_RESOLVED);
                case ESTABLISHED -> List.of(Input.START, Input.ADDR_RESOLVED, Input.ROUTE_RESOLVED, Input.ESTABLISHED);
                case DISCONNECTING -> List.of(Input.START, Input.ADDR_RESOLVED, Input.ROUTE_RESOLVED,
                        Input.ESTABLISHED, Input.CLOSE);
                case CLOSED -> List.of(Input.CLOSE);
                default -> throw new AssertionError(target);
            };
            for (Input i : path) {
                c.input(i, i.isCmEvent() ? event(c, i) : null);
            }
            return c;
        });
    }

    private static FakeCmId listenerId() {
        return ((dev.ibex.cm.fake.FakeEventChannel) listener.loop().cmChannel()).ids().stream()
                .filter(id -> id.localAddress().getPort() == 7471 && id.calls().contains("listen")).findFirst()
                .orElseThrow();
    }

    @ParameterizedTest(name = "{0} × {1}")
    @MethodSource("cells")
    void cell(ConnectionState from, Input input) throws Exception {
        Recorder r = new Recorder();
        Connection c = reach(from, r);
        assertThat(c.state()).isEqualTo(from);
        FakeCmId id = (FakeCmId) c.cmId();
        FakeQp qp = (FakeQp) c.qp();
        int before = r.events.size();
        int callsBefore = id.calls().size();
        EventLoop loop = c.loop();
        FakeCmId stray = input == Input.CONNECT_REQUEST
                ? g.on(loop, () -> (FakeCmId) loop.cmChannel().createId(PortSpace.TCP, null)) : null;
        Expected x = expected(from, input);

        IllegalStateException refused = g.on(loop, () -> {
            try {
                CmEvent e = input == Input.CONNECT_REQUEST
                        ? new CmEvent(CmEventType.CONNECT_REQUEST, stray, c.cmId(), 0, null, null, null, null)
                        : input.isCmEvent() ? event(c, input) : null;
                c.input(input, e);
                return null;
            } catch (IllegalStateException e) {
                return e;
            }
        });

        assertThat(refused != null).as("refused").isEqualTo(x.refused());
        assertThat(c.state()).isEqualTo(x.next());
        List<String> callbacks = r.events().subList(before, r.events.size());
        assertThat(callbacks).isEqualTo(x.callbacks());
        if (x.reason() != null) {
            Throwable err = r.error.getNow(null);
            if (from == ESTABLISHED) { // typed as an established connection's failure, the CM's reason as cause
                assertThat(err).isInstanceOfSatisfying(ConnectionFailedException.class, e -> assertThat(e.reason())
                        .isEqualTo(input == Input.DEVICE_REMOVAL ? ConnectionFailedException.Reason.DEVICE_REMOVAL
                                : ConnectionFailedException.Reason.CM_ERROR));
                err = err.getCause();
            }
            assertThat(err).isInstanceOfSatisfying(RdmaConnectException.class,
                    e -> assertThat(e.reason()).isEqualTo(x.reason()));
        } else if (callbacks.contains("error")) {
            assertThat(r.error.getNow(null)).isInstanceOf(RdmaException.class);
        }
        if (x.reason() == Reason.REJECTED) {
            Throwable err = r.error.getNow(null);
            RdmaConnectException e = (RdmaConnectException) (err instanceof ConnectionFailedException ? err.getCause()
                    : err);
            assertThat(e.isConsumerReject()).isTrue();
            assertThat(new String(e.privateData(), StandardCharsets.UTF_8)).isEqualTo("no");
        }
        List<String> calls = id.calls().subList(callsBefore, id.calls().size());
        if (x.call() != null) {
            assertThat(calls).anyMatch(call -> call.startsWith(x.call()));
        }
        if (stray != null) {
            assertThat(stray.isClosed()).isTrue();
            assertThat(stray.calls()).contains("reject");
        }
        if (x.next() == CLOSED) {
            assertThat(id.isClosed()).as("id destroyed").isTrue();
            assertThat(c.qp()).isNull();
            if (qp != null) {
                assertThat(qp.isClosed()).as("QP destroyed").isTrue();
            }
            if (from != CLOSED) {
                assertThat(r.events().getLast()).isEqualTo("closed");
            }
        }
        g.on(loop, () -> {
            c.abort();
            return null;
        });
        assertThat(r.events().stream().filter("closed"::equals).count()).as("closed exactly once").isEqualTo(1);
        synchronized (ConnectionTableWalkTest.class) {
            cellsWalked++;
        }
    }
}
