package dev.ibex.cm.spi;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A snapshot of live resource counts per {@link ResourceKind}.
 *
 * @param counts the count per kind; every kind is present (0 when absent from what was given)
 */
public record ResourceCounts(Map<ResourceKind, Integer> counts) {
    /** Copies the counts, adding 0 for every kind not given. */
    public ResourceCounts {
        EnumMap<ResourceKind, Integer> m = new EnumMap<>(ResourceKind.class);
        for (ResourceKind k : ResourceKind.values()) {
            m.put(k, counts.getOrDefault(k, 0));
        }
        counts = Collections.unmodifiableMap(m);
    }

    /**
     * The count of one kind.
     *
     * @param kind the kind
     * @return how many were open at the snapshot
     */
    public int get(ResourceKind kind) {
        return counts.get(kind);
    }

    /** {@return the sum over all kinds} */
    public int total() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** {@return the sum over the kinds a user creates (everything but device contexts and pollers the fabric owns)} */
    public int userResources() {
        return total() - get(ResourceKind.DEVICE_CONTEXT) - get(ResourceKind.POLLER);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        counts.forEach((k, v) -> {
            if (v != 0) {
                sb.append(sb.length() > 1 ? ", " : "").append(k.name().toLowerCase()).append('=').append(v);
            }
        });
        return sb.append('}').toString();
    }
}
