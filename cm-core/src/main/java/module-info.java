/**
 * Ibex's core: the provider SPI, event loops, endpoints with their state tables and callbacks, registered buffer
 * pools. Providers are found with {@link java.util.ServiceLoader} ({@code provides dev.ibex.cm.spi.RdmaProvider}).
 * The SPI package is exported to everyone: applications choose and configure providers through it
 * ({@code ProviderConfig}, {@code Providers}), and third-party providers implement it.
 */
module dev.ibex.cm {
    requires org.slf4j;

    exports dev.ibex.cm;
    exports dev.ibex.cm.buffer;
    exports dev.ibex.cm.endpoint;
    exports dev.ibex.cm.loop;
    exports dev.ibex.cm.queue;
    exports dev.ibex.cm.spi;

    uses dev.ibex.cm.spi.RdmaProvider;
}
