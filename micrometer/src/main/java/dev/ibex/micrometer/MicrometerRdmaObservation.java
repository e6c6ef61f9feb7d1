package dev.ibex.micrometer;

import dev.ibex.cm.reactive.RdmaObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.net.InetSocketAddress;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * An {@link RdmaObservation} as a Micrometer {@link Observation}: started with the parent found in the subscriber's
 * {@code Context}, low-cardinality keys {@code status} and {@code provider}, high-cardinality the peer's address and
 * port. Stopped once, from any thread.
 */
final class MicrometerRdmaObservation implements RdmaObservation {
    private final Observation observation;

    private MicrometerRdmaObservation(Observation observation) {
        this.observation = observation;
    }

    /** A started observation, or {@code null} when {@code registry} observes nothing. */
    static RdmaObservation start(ObservationRegistry registry, String name, String contextualName,
            InetSocketAddress remote, String provider, ContextView context) {
        if (registry == null || registry.isNoop()) {
            return null;
        }
        Observation o = Observation.createNotStarted(name, registry).contextualName(contextualName)
                .lowCardinalityKeyValue(RdmaObservations.PROVIDER, provider)
                .lowCardinalityKeyValue(RdmaObservations.STATUS, "UNKNOWN");
        if (remote != null) {
            o.highCardinalityKeyValue(RdmaObservations.PEER_ADDRESS, remote.getAddress() != null
                    ? remote.getAddress().getHostAddress() : remote.getHostString())
                    .highCardinalityKeyValue(RdmaObservations.PEER_PORT, Integer.toString(remote.getPort()));
        }
        if (context.getOrDefault(RdmaObservations.CONTEXT_KEY, null) instanceof Observation parent) {
            o.parentObservation(parent);
        }
        return new MicrometerRdmaObservation(o.start());
    }

    @Override
    public Context context(Context base) {
        return base.put(RdmaObservations.CONTEXT_KEY, observation);
    }

    @Override
    public void stop(String status, Throwable error) {
        observation.lowCardinalityKeyValue(RdmaObservations.STATUS, status);
        if (error != null) {
            observation.error(error);
        }
        observation.stop();
    }
}
