package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProvidersTest {

    /** Prefers itself but sees no device, like rdma-core on this kernel. */
    public static final class NoDeviceProvider implements RdmaProvider {
        @Override public String name() { return "test-native"; }
        @Override public ProviderStatus probe() { return ProviderStatus.unavailable(name(), "ENOSYS"); }
        @Override public boolean preferWhenAvailable() { return true; }
        @Override public Fabric open(ProviderConfig config) { throw new UnsupportedOperationException(); }
    }

    /** Stands in for soft-roce under the fallback name. */
    public static final class FallbackProvider implements RdmaProvider {
        @Override public String name() { return Providers.FALLBACK; }
        @Override public ProviderStatus probe() { return ProviderStatus.available(name(), List.of("soft0"), "ok"); }
        @Override public Fabric open(ProviderConfig config) { throw new UnsupportedOperationException(); }
    }

    // Not registered in META-INF/services: these stand-ins are for this test only; a registration would put a
    // second provider called "soft-roce" beside the real one wherever cm-core's test classes are on the path.
    private static final List<RdmaProvider> PROVIDERS = List.of(new NoDeviceProvider(), new FallbackProvider());

    private static RdmaProvider select(String explicit) {
        return Providers.select(explicit, PROVIDERS);
    }

    @AfterEach
    void clear() {
        System.clearProperty(Providers.PROPERTY);
    }

    @Test
    void fallsBackWhenThePreferredProviderSeesNoDevice() {
        assertThat(select(null).name()).isEqualTo(Providers.FALLBACK);
    }

    @Test
    void explicitNameWins() {
        assertThat(select("test-native").name()).isEqualTo("test-native");
    }

    @Test
    void systemPropertyWinsOverTheRule() {
        System.setProperty(Providers.PROPERTY, "test-native");
        assertThat(select(null).name()).isEqualTo("test-native");
    }

    @Test
    void unknownExplicitNameIsAClearError() {
        assertThatThrownBy(() -> select("nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no RDMA provider named 'nope'")
                .hasMessageContaining("test-native");
    }

    @Test
    void configReadsPropertiesThenSystemProperties() {
        ProviderConfig c = ProviderConfig.of(java.util.Map.of("a", "7"));
        assertThat(c.getInt("a", 1)).isEqualTo(7);
        assertThat(c.getInt("b", 1)).isEqualTo(1);
        assertThat(c.with("b", "true").getBoolean("b", false)).isTrue();
    }
}
