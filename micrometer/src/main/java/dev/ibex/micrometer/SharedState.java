package dev.ibex.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The state behind a gauge or function counter, one per registry and meter id. Micrometer keeps the first
 * registration of an id and ignores the state object of later ones, so two recorders on one registry (two servers
 * with recorders of their own, {@code metrics(true)} next to an explicit recorder) must count into the same object
 * or the second one's count would be invisible. Thread-safe; registries are held weakly.
 */
final class SharedState {
    private static final Map<MeterRegistry, Map<List<Object>, Object>> BY_REGISTRY =
            Collections.synchronizedMap(new WeakHashMap<>());

    private SharedState() {}

    /** The state of meter {@code name} with {@code tags} in {@code registry}, made by {@code make} the first time. */
    @SuppressWarnings("unchecked")
    static <T> T of(MeterRegistry registry, String name, Tags tags, Supplier<T> make) {
        Map<List<Object>, Object> states = BY_REGISTRY.computeIfAbsent(registry, r -> new ConcurrentHashMap<>());
        return (T) states.computeIfAbsent(List.of(name, tags), k -> make.get());
    }
}
