package dev.ibex.samples.kv;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.util.DefaultPayload;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The key-value service ({@link KvProtocol}): a map and a stream of updates that WATCH filters by key. Each request
 * is answered without blocking, on the connection's event loop.
 *
 * <p><b>Threading.</b> Handlers may run on several event loops: the map is concurrent and updates are emitted under
 * the sink's own serialisation ({@code Sinks.many().multicast()}, a failed concurrent emit is retried at once).
 */
public final class KvService implements RSocket {
    private final Map<String, String> store = new ConcurrentHashMap<>();
    private final Sinks.Many<Map.Entry<String, String>> updates = Sinks.many().multicast().directBestEffort();

    @Override
    public Mono<Payload> requestResponse(Payload p) {
        try {
            String op = p.getMetadataUtf8();
            String data = p.getDataUtf8();
            return switch (op) {
                case KvProtocol.GET -> {
                    String v = store.get(data);
                    yield v == null ? Mono.error(new ApplicationErrorException("no such key: " + data))
                            : Mono.just(DefaultPayload.create(v));
                }
                case KvProtocol.PUT -> {
                    int nl = data.indexOf('\n');
                    if (nl <= 0) {
                        yield Mono.error(new ApplicationErrorException("a PUT is KEY\\nVALUE"));
                    }
                    String key = data.substring(0, nl);
                    String value = data.substring(nl + 1);
                    String previous = store.put(key, value);
                    updates.emitNext(Map.entry(key, value),
                            (signal, result) -> result == Sinks.EmitResult.FAIL_NON_SERIALIZED);
                    yield Mono.just(DefaultPayload.create(previous == null ? "" : previous));
                }
                default -> Mono.error(new ApplicationErrorException("unknown operation \"" + op + "\""));
            };
        } finally {
            p.release();
        }
    }

    @Override
    public Flux<Payload> requestStream(Payload p) {
        String op;
        String key;
        try {
            op = p.getMetadataUtf8();
            key = p.getDataUtf8();
        } finally {
            p.release();
        }
        if (!op.equals(KvProtocol.WATCH)) {
            return Flux.error(new ApplicationErrorException("unknown stream \"" + op + "\""));
        }
        // subscribe to the updates first, then read the current value: a PUT between the two is seen (perhaps twice),
        // never missed
        Flux<String> later = updates.asFlux().filter(e -> e.getKey().equals(key)).map(Map.Entry::getValue);
        return Flux.merge(later, Mono.fromSupplier(() -> store.get(key))).map(DefaultPayload::create);
    }

    /** Keys stored now. */
    public int size() {
        return store.size();
    }
}
