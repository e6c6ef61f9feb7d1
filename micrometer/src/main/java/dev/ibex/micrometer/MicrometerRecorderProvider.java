package dev.ibex.micrometer;

import dev.ibex.cm.reactive.RdmaMetricsRecorder;
import dev.ibex.cm.reactive.RdmaMetricsRecorderProvider;
import io.micrometer.core.instrument.Metrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@code metrics(true)} finds with {@link java.util.ServiceLoader}: one {@link MicrometerRdmaMetricsRecorder} per
 * component, recording into Micrometer's global registry ({@link Metrics#globalRegistry}, as reactor-netty does).
 * The remote address (and a multicast group) becomes a tag only when the system property {@value #REMOTE_ADDRESS_TAG}
 * is {@code true} (one time series per peer or group: opt in only with few of them). Connects and accepted connections
 * are observed into {@link RdmaObservations#registry()} (none by default). Thread-safe.
 */
public final class MicrometerRecorderProvider implements RdmaMetricsRecorderProvider {
    /**
     * The system property that adds the {@code remote.address} tag (and on multicast meters the {@code group} tag) to
     * the recorders {@code metrics(true)} makes.
     */
    public static final String REMOTE_ADDRESS_TAG = "ibex.metrics.remoteAddressTag";

    private static final Map<String, MicrometerRdmaMetricsRecorder> RECORDERS = new ConcurrentHashMap<>();

    /** The instance {@link java.util.ServiceLoader} makes. */
    public MicrometerRecorderProvider() {}

    @Override
    public RdmaMetricsRecorder recorder(String component) {
        boolean remote = Boolean.getBoolean(REMOTE_ADDRESS_TAG);
        return RECORDERS.computeIfAbsent(component + (remote ? "+remote" : ""),
                k -> MicrometerRdmaMetricsRecorder.create(Metrics.globalRegistry, component, remote));
    }
}
