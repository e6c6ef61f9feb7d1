package dev.ibex.cm.reactive;

import java.util.ServiceLoader;

/**
 * Makes the recorder that {@code metrics(true)} installs on an {@link RdmaServer} or {@link RdmaClient}, found with
 * {@link ServiceLoader} (as reactor-netty finds Micrometer on the class path): the {@code ibex-micrometer} artifact
 * provides one that records into Micrometer's global registry. Without one on the path {@code metrics(true)} throws.
 */
public interface RdmaMetricsRecorderProvider {

    /**
     * A recorder for one kind of component.
     *
     * @param component {@code "server"}, {@code "client"}, {@code "datagram"} or {@code "multicast"}: the meters of
     *     each are named apart
     * @return the recorder (may be shared by every server or client that asks)
     */
    RdmaMetricsRecorder recorder(String component);

    /**
     * The recorder of the first provider on the path.
     *
     * @throws UnsupportedOperationException when there is none (add {@code dev.ibex:ibex-micrometer})
     * @param component {@code "server"} or {@code "client"} (passed to {@link #recorder})
     * @return the first provider's recorder for {@code component}
     */
    static RdmaMetricsRecorder load(String component) {
        for (RdmaMetricsRecorderProvider p : ServiceLoader.load(RdmaMetricsRecorderProvider.class,
                RdmaMetricsRecorderProvider.class.getClassLoader())) {
            return p.recorder(component);
        }
        throw new UnsupportedOperationException("metrics(true) needs a metrics recorder on the class or module path: "
                + "add the dependency dev.ibex:ibex-micrometer (and io.micrometer:micrometer-core), or pass a recorder "
                + "to metrics(RdmaMetricsRecorder)");
    }
}
