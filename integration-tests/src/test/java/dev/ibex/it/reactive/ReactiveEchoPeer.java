package dev.ibex.it.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.WorkCompletionException;
import dev.ibex.cm.reactive.AcceptDecision;
import dev.ibex.cm.reactive.ConnectionEvent;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.WcStatus;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One side of the reactive echo, run as a process of its own ({@code main}) by the multi-process tests, on whatever
 * provider the system properties select. Prints one line per milestone for the test to wait on.
 *
 * <ul>
 *   <li>{@code server HOST PORT}: accepts with "welcome " + the client's private data, exposes the first 128 bytes of
 *       a buffer holding "server-memory" for READ and WRITE and sends their descriptor as its first message, then
 *       echoes every message; prints
 *       {@code LISTENING port}, {@code ACCEPTED data}, {@code CLOSED}. Runs until killed.
 *   <li>{@code client HOST PORT N [LOCAL]}: connects (from LOCAL when given) with "hello", echoes N messages, READs and WRITEs the server's buffer,
 *       disconnects; then, on a second connection, READs 8 bytes past the exposure's end; prints {@code FROM local-ip},
 *       {@code ECHO OK}, {@code RDMA OK}, {@code DISCONNECTED}, {@code OUT OF BOUNDS REFUSED}; exit 0, else 1.
 *   <li>{@code watch HOST PORT}: connects, prints {@code CONNECTED}, then sends a message every 50 ms until the
 *       connection ends, printing each lifecycle event and {@code ENDED}; exit 0 when it ended, 2 when it did not
 *       within 60 s.
 * </ul>
 */
public final class ReactiveEchoPeer {
    static final String SERVER_MEMORY = "server-memory";
    static final String WRITTEN = "written-by-client";

    private ReactiveEchoPeer() {}

    public static void main(String[] args) throws Exception {
        int code = switch (args[0]) {
            case "server" -> server(args[1], Integer.parseInt(args[2]));
            case "client" -> client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    args.length > 4 ? args[4] : null);
            case "watch" -> watch(args[1], Integer.parseInt(args[2]));
            default -> throw new IllegalArgumentException("server|client|watch, not " + args[0]);
        };
        System.out.flush();
        System.exit(code);
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static int server(String host, int port) throws InterruptedException {
        DisposableServer server = RdmaServer.create().host(host).port(port)
                .accept(req -> {
                    String hello = new String(req.privateData(), StandardCharsets.UTF_8).trim();
                    say("ACCEPTED " + hello);
                    return Mono.just(AcceptDecision.accept(("welcome " + hello).getBytes(StandardCharsets.UTF_8)));
                })
                .handle(c -> {
                    c.onDispose().subscribe(null, null, () -> say("CLOSED"));
                    return c.allocate().flatMap(buf -> {
                        MemorySegment s = buf.segment();
                        s.asSlice(0, 128).fill((byte) 0);
                        MemorySegment.copy(MemorySegment.ofArray(SERVER_MEMORY.getBytes(StandardCharsets.UTF_8)), 0,
                                s, 0, SERVER_MEMORY.length());
                        return c.expose(buf, 0, 128, RemoteAccess.READ, RemoteAccess.WRITE)
                                .flatMap(x -> c.send(Flux.concat(Mono.just(x.remote().toBytes()),
                                        c.receive().map(Message::retain))))
                                .doFinally(sig -> buf.release());
                    });
                })
                .bindNow(Duration.ofSeconds(30));
        say("LISTENING " + server.port());
        server.onDispose().block(); // until killed
        return 0;
    }

    static int client(String host, int port, int count, String local) throws Exception {
        RdmaClient client = RdmaClient.create();
        if (local != null) {
            client = client.localHost(local);
        }
        RdmaConnection c = client.host(host).port(port)
                .privateData("hello".getBytes(StandardCharsets.UTF_8))
                .connectTimeout(Duration.ofSeconds(30))
                .connectNow(Duration.ofSeconds(40));
        String welcome = new String(c.peerPrivateData(), StandardCharsets.UTF_8).trim();
        if (!welcome.equals("welcome hello")) {
            say("FAILED private data: " + welcome);
            return 1;
        }
        BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
        c.receive().map(Message::toByteArray).subscribe(inbox::add, inbox::add);
        RemoteBuffer memory = RemoteBuffer.decode((byte[]) take(inbox), 0);
        for (int i = 0; i < count; i++) {
            String ping = "ping-" + i;
            c.send(Mono.just(ping)).block(Duration.ofSeconds(30));
            String echo = new String((byte[]) take(inbox), StandardCharsets.UTF_8);
            if (!echo.equals(ping)) {
                say("FAILED echo " + echo + " for " + ping);
                return 1;
            }
        }
        say("FROM " + c.localAddress().getAddress().getHostAddress());
        say("ECHO OK " + count);
        String before = c.read(memory, 0, SERVER_MEMORY.length()).map(Message::asString).block(Duration.ofSeconds(30));
        c.write(memory, 64, WRITTEN.getBytes(StandardCharsets.UTF_8)).block(Duration.ofSeconds(30));
        String after = c.read(memory, 64, WRITTEN.length()).map(Message::asString).block(Duration.ofSeconds(30));
        if (!SERVER_MEMORY.equals(before) || !WRITTEN.equals(after)) {
            say("FAILED rdma: read " + before + ", after write " + after);
            return 1;
        }
        say("RDMA OK");
        c.disconnect().block(Duration.ofSeconds(30));
        say("DISCONNECTED");
        return outOfBounds(host, port, local);
    }

    /**
     * A second connection plays a hostile client: a READ with the exposure's key that runs 8 bytes past its end must
     * fail with a remote access error (the server exposed exactly 128 bytes of a larger buffer).
     */
    static int outOfBounds(String host, int port, String local) throws Exception {
        RdmaClient client = RdmaClient.create();
        if (local != null) {
            client = client.localHost(local);
        }
        RdmaConnection h = client.host(host).port(port).privateData("hello".getBytes(StandardCharsets.UTF_8))
                .connectTimeout(Duration.ofSeconds(30)).connectNow(Duration.ofSeconds(40));
        BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
        h.receive().map(Message::toByteArray).subscribe(inbox::add, inbox::add);
        RemoteBuffer exposed = RemoteBuffer.decode((byte[]) take(inbox), 0);
        RemoteBuffer wider = new RemoteBuffer(exposed.address(), exposed.rkey(), exposed.length() + 64);
        Throwable e = h.read(wider, exposed.length() - 8, 16).then(Mono.<Throwable>empty())
                .onErrorResume(Mono::just).block(Duration.ofSeconds(60));
        h.dispose();
        if (e instanceof WorkCompletionException w && w.status() == WcStatus.REM_ACCESS_ERR) {
            say("OUT OF BOUNDS REFUSED");
            return 0;
        }
        say("FAILED out of bounds: " + e);
        return 1;
    }

    static int watch(String host, int port) {
        RdmaConnection c = RdmaClient.create().host(host).port(port)
                .privateData("watcher".getBytes(StandardCharsets.UTF_8))
                .connectTimeout(Duration.ofSeconds(30))
                .connectNow(Duration.ofSeconds(40));
        c.receive().subscribe(m -> { }, e -> { });
        say("CONNECTED");
        c.send(Flux.interval(Duration.ofMillis(50)).onBackpressureDrop().map(i -> "beat-" + i)).subscribe(null,
                e -> say("SEND FAILED " + e.getClass().getName() + ": " + e.getMessage()));
        ConnectionEvent last = c.events()
                .doOnNext(e -> say("EVENT " + e.type() + (e.cause() == null ? "" : " "
                        + e.cause().getClass().getName() + ": " + e.cause().getMessage())))
                .filter(e -> e.type() == ConnectionEvent.Type.CLOSED)
                .next()
                .block(Duration.ofSeconds(60));
        if (last == null) {
            return 2;
        }
        say("ENDED");
        return 0;
    }

    private static Object take(BlockingQueue<Object> inbox) throws Exception {
        Object o = inbox.poll(30, TimeUnit.SECONDS);
        if (o == null) {
            throw new IllegalStateException("nothing received within 30 s");
        }
        if (o instanceof Throwable t) {
            throw new IllegalStateException("receive failed", t);
        }
        return o;
    }
}
