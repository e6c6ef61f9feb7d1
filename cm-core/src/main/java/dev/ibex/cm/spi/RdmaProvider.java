package dev.ibex.cm.spi;

/**
 * A provider: one implementation of the Ibex SPI (like a Netty transport). Found with
 * {@link java.util.ServiceLoader}; chosen by {@link Providers#select(String)}.
 *
 * <p>Implementations must be cheap to construct: {@link #probe()} may load native libraries but must not
 * open devices for long, and neither method may crash the JVM on a machine without RDMA.
 */
public interface RdmaProvider {

    /** {@return the stable short name used for selection: {@code "rdma-core"}, {@code "soft-roce"}} */
    String name();

    /**
     * Whether this provider can run here and what it sees. Never throws: a provider that cannot run
     * reports why ({@link ProviderStatus#reason()}).
     *
     * @return what the provider found
     */
    ProviderStatus probe();

    /** {@return whether, absent an explicit choice, this provider is preferred when {@link #probe()} finds devices} */
    default boolean preferWhenAvailable() {
        return false;
    }

    /**
     * Opens the provider.
     *
     * @param config the provider's options
     * @return the open fabric, which the caller closes
     * @throws dev.ibex.cm.RdmaException when it cannot run here (the message says why and what to do)
     */
    Fabric open(ProviderConfig config);
}
