package dev.ibex.samples.demo;

import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.reactive.AcceptDecision;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The demo's server side: admits only clients whose connect private data starts with {@link #TOKEN} (the accept
 * carries {@link #WELCOME} back, a reject carries {@link #GO_AWAY}), exposes one registered buffer per connection
 * as an RDMA target (a memory window bound to that connection: READ, WRITE and atomics on exactly that buffer) — its
 * descriptor is the first message — and echoes every message after that.
 */
final class EchoService {
    static final byte[] TOKEN = "ibex-demo/1".getBytes(StandardCharsets.US_ASCII);
    static final byte[] WELCOME = "welcome to the echo service".getBytes(StandardCharsets.US_ASCII);
    static final byte[] GO_AWAY = "unknown client".getBytes(StandardCharsets.US_ASCII);

    private EchoService() {}

    /** The accept policy: a look at the request's private data (RDMA CM pads it with zeros, hence a prefix). */
    static Mono<AcceptDecision> admit(RdmaRequest request) {
        byte[] data = request.privateData();
        boolean known = data.length >= TOKEN.length && Arrays.equals(data, 0, TOKEN.length, TOKEN, 0, TOKEN.length);
        return Mono.just(known ? AcceptDecision.accept(WELCOME) : AcceptDecision.reject(GO_AWAY));
    }

    /** The connection handler: descriptor first, then an echo of everything, until the client disconnects. */
    static Mono<Void> serve(RdmaConnection conn) {
        return conn.allocate().flatMap(target -> {
            target.segment().fill((byte) 0);
            // exactly this buffer, the rights the demo uses, to this connection only; the rest of the pool stays local
            return conn.expose(target, RemoteAccess.READ, RemoteAccess.WRITE, RemoteAccess.ATOMIC)
                    .flatMap(exposure -> conn.send(Flux.concat(Mono.just(exposure.remote().toBytes()),
                            conn.receive())))
                    .then(conn.onDispose())
                    .doFinally(s -> target.release()); // the RDMA target lives as long as the connection
        });
    }
}
