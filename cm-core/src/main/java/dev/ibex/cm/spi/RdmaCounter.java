package dev.ibex.cm.spi;

import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * One monotonic counter a provider or the framework keeps (retransmissions, RNR NAKs, drops, path migrations,
 * credit stalls …), read lazily: whoever wants the figure calls {@link #read()} when it wants it (a metrics scrape),
 * so counting costs the data path nothing beyond the provider's own increment. A counter never decreases and is never
 * reset while its owner is open.
 *
 * <p>Tags are bounded: {@code device}, {@code port} or {@code loop} — never a connection, QP or peer.
 *
 * <p>Threading: {@link #read()} may be called from any thread; the value is a racy snapshot.
 *
 * @param name dotted lower-case name without a prefix ({@code "retransmissions"}, {@code "drops.off.path"})
 * @param description one sentence saying what is counted
 * @param tags bounded tags (a copy is kept)
 * @param value reads the current value
 */
public record RdmaCounter(String name, String description, Map<String, String> tags, LongSupplier value) {

    /** Checks the arguments and copies the tags. */
    public RdmaCounter {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(value, "value");
        if (name.isEmpty() || !name.equals(name.toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("a counter name is dotted lower case, got '" + name + "'");
        }
        tags = Map.copyOf(tags);
    }

    /** {@return the current value (a racy snapshot; never smaller than an earlier read)} */
    public long read() {
        return value.getAsLong();
    }

    /**
     * This counter with one more tag (an existing one of the same key is replaced).
     *
     * @param key the tag's key, e.g. {@code "provider"}
     * @param tagValue the tag's value
     * @return a counter reading the same value
     */
    public RdmaCounter withTag(String key, String tagValue) {
        java.util.HashMap<String, String> t = new java.util.HashMap<>(tags);
        t.put(key, tagValue);
        return new RdmaCounter(name, description, t, value);
    }
}
