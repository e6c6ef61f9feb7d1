package dev.ibex.samples.kv;

import io.rsocket.Payload;
import io.rsocket.util.DefaultPayload;

/**
 * The key-value service's wire contract, on RSocket: the operation is the metadata ({@value #GET}, {@value #PUT},
 * {@value #WATCH}), the data is the key — for a PUT the key, a newline and the value. GET and PUT are request-response
 * (GET answers the value or fails with an application error "no such key: K"; PUT answers the previous value, empty
 * when there was none); WATCH is a request-stream of the key's values: the current one (when there is one), then
 * every later PUT.
 *
 * <p><b>Threading.</b> Stateless.
 */
public final class KvProtocol {
    public static final String GET = "get";
    public static final String PUT = "put";
    public static final String WATCH = "watch";

    private KvProtocol() {}

    public static Payload get(String key) {
        return DefaultPayload.create(checked(key), GET);
    }

    public static Payload put(String key, String value) {
        return DefaultPayload.create(checked(key) + "\n" + value, PUT);
    }

    public static Payload watch(String key) {
        return DefaultPayload.create(checked(key), WATCH);
    }

    private static String checked(String key) {
        if (key.isEmpty() || key.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a key is a non-empty line, got \"" + key + "\"");
        }
        return key;
    }
}
