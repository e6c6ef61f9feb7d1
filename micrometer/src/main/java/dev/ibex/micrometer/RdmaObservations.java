package dev.ibex.micrometer;

import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;

/**
 * Micrometer {@code Observation}s of connects and accepted connections, for tracing: the names and keys, and the
 * registry the recorders {@code metrics(true)} makes use (like reactor-netty's {@code Metrics.observationRegistry}).
 * Set a registry with a tracing handler ({@code micrometer-tracing}'s bridges) and every RDMA connect becomes a child
 * of the observation in the subscriber's Reactor {@code Context} (key {@value #CONTEXT_KEY}, which Reactor's
 * automatic context propagation and {@code contextCapture()} fill from the current thread):
 *
 * <pre>{@code
 * RdmaObservations.registry(observationRegistry);      // once, for metrics(true)
 * RdmaClient.create().metrics(true)...connect()        // an "ibex.rdma.client.connect" observation per attempt
 * // or for one client or server:
 * RdmaClient.create().metrics(MicrometerRdmaMetricsRecorder.create(meters, "client", false)
 *         .observationRegistry(observationRegistry))
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class RdmaObservations {
    /** A client's connect attempt, from {@code connect()} to established or failed. */
    public static final String CLIENT_CONNECT = "ibex.rdma.client.connect";
    /** A server's handling of one connection request, from the request to established, rejected or failed. */
    public static final String SERVER_CONNECTION = "ibex.rdma.server.connection";
    /**
     * The Reactor {@code Context} key of the current observation: Micrometer's
     * {@code ObservationThreadLocalAccessor.KEY}, where Reactor's context propagation keeps it.
     */
    public static final String CONTEXT_KEY = "micrometer.observation";
    /** Low-cardinality key: the outcome ({@code SUCCESS}, {@code REJECTED}, a reason, {@code ERROR}, {@code CANCELLED}). */
    public static final String STATUS = "status";
    /** Low-cardinality key: the provider ({@code soft-roce}, {@code rdma-core}). */
    public static final String PROVIDER = "provider";
    /** High-cardinality key: the peer's IP address. */
    public static final String PEER_ADDRESS = "net.peer.address";
    /** High-cardinality key: the peer's RDMA CM port. */
    public static final String PEER_PORT = "net.peer.port";

    private static volatile ObservationRegistry registry = ObservationRegistry.NOOP;

    private RdmaObservations() {}

    /**
     * Sets the registry the recorders of {@code metrics(true)} observe into (default: {@code NOOP}, which observes
     * nothing and costs one check per connect). Takes effect for connects and requests from now on.
     *
     * @param observationRegistry the registry ({@code ObservationRegistry.NOOP} turns observing off again)
     */
    public static void registry(ObservationRegistry observationRegistry) {
        registry = Objects.requireNonNull(observationRegistry, "observationRegistry");
    }

    /**
     * The registry the recorders of {@code metrics(true)} observe into.
     *
     * @return the registry set last, {@code ObservationRegistry.NOOP} by default
     */
    public static ObservationRegistry registry() {
        return registry;
    }
}
