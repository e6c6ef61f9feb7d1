package dev.ibex.cm.fake;

import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.RdmaProvider;
import java.util.List;

/**
 * The fake as a provider ({@code "fake"}), so code that selects providers by name can run on it. Opens a
 * loopback fabric; {@code fake.mode=scripted} opens a scripted one.
 */
public final class FakeProvider implements RdmaProvider {
    /** The provider's name, to select it in a {@link ProviderConfig}. */
    public static final String NAME = "fake";

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public FakeProvider() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProviderStatus probe() {
        return ProviderStatus.available(NAME, List.of("fake0", "fake1"), "in-memory test fabric");
    }

    @Override
    public Fabric open(ProviderConfig config) {
        return "scripted".equals(config.get("fake.mode", "loopback")) ? FakeFabric.scripted() : FakeFabric.loopback();
    }
}
