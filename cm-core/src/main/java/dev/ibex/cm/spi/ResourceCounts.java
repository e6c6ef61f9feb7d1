package dev.ibex.cm.spi;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/** A snapshot of live resource counts per {@link ResourceKind}. */
public record ResourceCounts(Map<ResourceKind, Integer> counts) {
    public ResourceCounts {
        EnumMap<ResourceKind, Integer> m = new EnumMap<>(ResourceKind.class);
        for (ResourceKind k : ResourceKind.values()) {
            m.put(k, counts.getOrDefault(k, 0));
        }
        counts = Collections.unmodifiableMap(m);
    }

    public int get(ResourceKind kind) {
        return counts.get(kind);
    }

    /** Sum over all kinds. */
    public int total() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Sum over the kinds a user creates (everything but device contexts and pollers the fabric owns). */
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
