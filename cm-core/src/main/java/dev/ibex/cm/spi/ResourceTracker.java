package dev.ibex.cm.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Live-resource bookkeeping a provider shares between its objects: counts per kind (cheap, lock-free) and
 * the set of open resources so that closing the fabric closes the leftovers in {@link ResourceKind} order.
 * Providers call {@link #opened} when a resource is created and {@link #closed} when it is destroyed.
 */
public final class ResourceTracker {
    private static final Logger LOG = LoggerFactory.getLogger(ResourceTracker.class);

    private final AtomicIntegerArray counts = new AtomicIntegerArray(ResourceKind.values().length);
    private final LinkedHashSet<Tracked> open = new LinkedHashSet<>();

    /** A tracker with nothing open. */
    public ResourceTracker() {
    }

    /** A resource registered with a tracker. */
    public interface Tracked extends AutoCloseable {
        /** {@return what kind of resource this is, which fixes when closing the fabric closes it} */
        ResourceKind kind();

        @Override
        void close();
    }

    /**
     * Counts a new resource and keeps it for {@link #closeAll}. Thread-safe.
     *
     * @param r the resource just created
     */
    public void opened(Tracked r) {
        counts.incrementAndGet(r.kind().ordinal());
        synchronized (open) {
            open.add(r);
        }
    }

    /**
     * Forgets a destroyed resource. Idempotent per resource: only the first call for a registered resource
     * decrements its count. Thread-safe.
     *
     * @param r the resource just destroyed
     */
    public void closed(Tracked r) {
        boolean removed;
        synchronized (open) {
            removed = open.remove(r);
        }
        if (removed) {
            counts.decrementAndGet(r.kind().ordinal());
        }
    }

    /** {@return the live count of every kind now} */
    public ResourceCounts snapshot() {
        Map<ResourceKind, Integer> m = new EnumMap<>(ResourceKind.class);
        for (ResourceKind k : ResourceKind.values()) {
            m.put(k, counts.get(k.ordinal()));
        }
        return new ResourceCounts(m);
    }

    /**
     * Closes every resource still open, in destruction order (kind order, newest first within a kind).
     * Failures are logged and do not stop the sweep.
     */
    public void closeAll() {
        List<Tracked> todo;
        synchronized (open) {
            todo = new ArrayList<>(open);
        }
        java.util.Collections.reverse(todo);
        todo.sort(Comparator.comparingInt(t -> t.kind().ordinal()));
        for (Tracked t : todo) {
            try {
                t.close();
            } catch (RuntimeException e) {
                LOG.warn("closing leftover {} failed: {}", t.kind(), e.toString());
            } finally {
                closed(t);
            }
        }
    }
}
