package dev.ibex.it.reactive;

import dev.ibex.cm.endpoint.ConnectionFailedException;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.reactive.ConnectionEvent;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a connection notices when its peer's process dies, by what it was doing (a process of its own, run by
 * {@link SurvivorMultiProcessTest} and {@link SurvivorVmTest}).
 *
 * <ul>
 *   <li>{@code server HOST PORT}: accepts everything, sends one message per connection, reads and drops what
 *       arrives; prints {@code LISTENING port}. Runs until killed.
 *   <li>{@code client HOST PORT KEEPALIVE_MS}: opens one connection per {@link #ROLES role}, prints
 *       {@code CONNECTED} once all got the server's message, then one line per connection when it ends:
 *       {@code END role event receive=error|complete cause} (cause: the failure's type and reason), and once all
 *       ended or after {@code 8 × KEEPALIVE_MS + 5 s} {@code UP role} for every connection still established;
 *       exits 0.
 * </ul>
 */
public final class SurvivorPeer {
    /** What each connection does; the "+ka" ones have keepalive on. */
    static final String[] ROLES = {"send", "receive", "echo", "idle", "receive+ka", "echo+ka", "idle+ka"};

    private SurvivorPeer() {}

    public static void main(String[] args) throws Exception {
        int code = args[0].equals("server") ? server(args[1], Integer.parseInt(args[2]))
                : client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        System.out.flush();
        System.exit(code);
    }

    static int server(String host, int port) {
        DisposableServer server = RdmaServer.create().host(host).port(port)
                .handle(c -> c.send(Mono.just("hello")).thenMany(c.receive()).then())
                .bindNow(Duration.ofSeconds(30));
        ReactiveEchoPeer.say("LISTENING " + server.port());
        server.onDispose().block();
        return 0;
    }

    static int client(String host, int port, int keepaliveMs) throws InterruptedException {
        ConnectionOptions plain = ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(60));
        ConnectionOptions ka = plain.withKeepalive(Duration.ofMillis(keepaliveMs), 3);
        Map<String, RdmaConnection> connections = new LinkedHashMap<>();
        Map<String, String> receiveEnd = new ConcurrentHashMap<>();
        CountDownLatch greeted = new CountDownLatch(ROLES.length);
        for (String role : ROLES) {
            RdmaConnection c = RdmaClient.create().host(host).port(port)
                    .options(role.endsWith("+ka") ? ka : plain).connectNow(Duration.ofSeconds(90));
            connections.put(role, c);
            Flux<Message> in = c.receive().doOnNext(m -> greeted.countDown())
                    .doOnError(e -> receiveEnd.put(role, "error"))
                    .doOnComplete(() -> receiveEnd.put(role, "complete"));
            switch (role.replace("+ka", "")) {
                case "send" -> {
                    in.subscribe(m -> { }, e -> { });
                    c.send(Flux.interval(Duration.ofMillis(50)).onBackpressureDrop().map(i -> "beat-" + i))
                            .subscribe(null, e -> { });
                }
                case "echo" -> c.send(in.map(Message::retain)).subscribe(null, e -> { });
                case "receive", "idle" -> in.subscribe(m -> { }, e -> { });
                default -> throw new IllegalArgumentException(role);
            }
        }
        if (!greeted.await(60, TimeUnit.SECONDS)) {
            ReactiveEchoPeer.say("FAILED not every connection was greeted");
            return 1;
        }
        connections.forEach((role, c) -> c.events().filter(e -> e.type() == ConnectionEvent.Type.CLOSED
                        || e.type() == ConnectionEvent.Type.ERROR || e.type() == ConnectionEvent.Type.DISCONNECTED)
                .next()
                .subscribe(e -> {
                    // the receive side reports on the same loop, just before or after the event
                    c.onDispose().subscribe(null, null, () -> ReactiveEchoPeer.say("END " + role + " " + e.type()
                            + " receive=" + receiveEnd.getOrDefault(role, "open") + " " + cause(e.cause())));
                }));
        ReactiveEchoPeer.say("CONNECTED");
        // wait until every connection ended, or long enough to say which stay up
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(keepaliveMs * 8L + 5_000);
        while (System.nanoTime() < deadline && !connections.values().stream().allMatch(RdmaConnection::isDisposed)) {
            Thread.sleep(50);
        }
        Thread.sleep(200); // the last END lines
        connections.forEach((role, c) -> {
            if (!c.isDisposed()) {
                ReactiveEchoPeer.say("UP " + role);
            }
        });
        return 0;
    }

    private static String cause(Throwable t) {
        if (t == null) {
            return "-";
        }
        return t instanceof ConnectionFailedException f ? "ConnectionFailedException " + f.reason()
                : t.getClass().getSimpleName();
    }
}
