package dev.ibex.it.reactive;

import dev.ibex.rsocket.CloseableRdmaServer;
import dev.ibex.rsocket.RdmaClientTransport;
import dev.ibex.rsocket.RdmaServerTransport;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import io.rsocket.util.DefaultPayload;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * One side of an RSocket-over-Ibex conversation, run as a process of its own by {@link RSocketMultiProcessTest} on
 * whatever provider the system properties select. Prints one line per milestone.
 *
 * <ul>
 *   <li>{@code server HOST PORT}: request-response "echo X" answers X, "hold" never answers (prints {@code HOLDING});
 *       prints {@code LISTENING port}; runs until killed.
 *   <li>{@code client HOST PORT KEEPALIVE_MS}: connects (RSocket keepalive every KEEPALIVE_MS), echoes once
 *       ({@code ECHO OK}), sends "hold" and waits for it to fail: prints {@code FAILED ms class: message} (ms from
 *       the request) and exits 0, or {@code HUNG} and exits 2 after 120 s. When the transport connection ends it
 *       prints {@code TRANSPORT class: message} (its error) or {@code TRANSPORT CLOSED}.
 * </ul>
 */
public final class RSocketPeer {
    private RSocketPeer() {}

    public static void main(String[] args) {
        int code = switch (args[0]) {
            case "server" -> server(args[1], Integer.parseInt(args[2]));
            case "client" -> client(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]));
            default -> throw new IllegalArgumentException("server|client, not " + args[0]);
        };
        System.out.flush();
        System.exit(code);
    }

    static int server(String host, int port) {
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.forRequestResponse(p -> {
                    String data = p.getDataUtf8();
                    p.release();
                    if (data.equals("hold")) {
                        ReactiveEchoPeer.say("HOLDING");
                        return Mono.never();
                    }
                    return Mono.just(DefaultPayload.create(data.substring("echo ".length())));
                }))
                .bind(RdmaServerTransport.create(host, port))
                .block(Duration.ofSeconds(60));
        ReactiveEchoPeer.say("LISTENING " + server.address().getPort());
        server.onClose().block(); // until killed
        return 0;
    }

    static int client(String host, int port, long keepAliveMs) {
        RSocket rsocket = RSocketConnector.create()
                .keepAlive(Duration.ofMillis(keepAliveMs), Duration.ofHours(1)) // the transport notices, not RSocket
                // RSocket fails outstanding requests with ClosedChannelException whatever ended the connection; the
                // transport's own cause is the connection's onClose error
                .interceptors(r -> r.forConnection((type, c) -> {
                    if (type == DuplexConnectionInterceptor.Type.SOURCE) {
                        c.onClose().subscribe(null, e -> ReactiveEchoPeer.say("TRANSPORT " + e.getClass().getName()
                                + ": " + e.getMessage()), () -> ReactiveEchoPeer.say("TRANSPORT CLOSED"));
                    }
                    return c;
                }))
                .connect(RdmaClientTransport.create(host, port).connectTimeout(Duration.ofSeconds(30)))
                .block(Duration.ofSeconds(60));
        Payload echo = rsocket.requestResponse(DefaultPayload.create("echo ping")).block(Duration.ofSeconds(60));
        if (!"ping".equals(echo.getDataUtf8())) {
            ReactiveEchoPeer.say("FAILED echo " + echo.getDataUtf8());
            return 1;
        }
        echo.release();
        rsocket.onClose().subscribe(null, e -> ReactiveEchoPeer.say("CLOSED " + e), () -> ReactiveEchoPeer.say("CLOSED"));
        ReactiveEchoPeer.say("ECHO OK");
        long t0 = System.nanoTime();
        try {
            rsocket.requestResponse(DefaultPayload.create("hold")).block(Duration.ofSeconds(120));
            ReactiveEchoPeer.say("HUNG (no error within 120 s)");
            return 2;
        } catch (RuntimeException e) {
            Throwable t = reactor.core.Exceptions.unwrap(e);
            ReactiveEchoPeer.say("FAILED " + (System.nanoTime() - t0) / 1_000_000 + " " + t.getClass().getName()
                    + ": " + t.getMessage());
            return 0;
        }
    }
}
