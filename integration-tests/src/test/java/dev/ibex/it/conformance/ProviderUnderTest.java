package dev.ibex.it.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;

/**
 * The fixture of the conformance suite: which provider, how to configure it, where the two endpoints live and
 * what the provider legitimately cannot do.
 *
 * @param name the provider's {@link dev.ibex.cm.spi.RdmaProvider#name()}
 * @param config its configuration
 * @param secondConfig the configuration of a second fabric open at the same time in this process (a provider that
 *     binds sockets needs other ports for it)
 * @param server the local address the passive side (listeners) binds to
 * @param client the local address the active side resolves from (may equal {@code server}: then both ends share a
 *     device and traffic loops back inside it)
 * @param silent an on-link address nobody answers (address resolution times out), or {@code null}
 * @param missing the capabilities it lacks, each with the reason shown when a test is skipped
 * @param eventTimeout how long any single wait may take (the Soft-RoCE VM runs under TCG, about 10× slower)
 */
public record ProviderUnderTest(String name, ProviderConfig config, ProviderConfig secondConfig, InetAddress server,
        InetAddress client,
        InetAddress silent, Map<Capability, String> missing, Duration eventTimeout) {

    /**
     * System property (or environment variable {@code IBEX_CONFORMANCE_UNGATE}): capabilities, comma-separated, whose
     * gate is lifted, to check whether a provider still lacks them (e.g. after a kernel upgrade).
     */
    public static final String UNGATE = "ibex.conformance.ungate";

    public ProviderUnderTest {
        java.util.HashMap<Capability, String> m = new java.util.HashMap<>(missing);
        String ungate = System.getProperty(UNGATE, System.getenv().getOrDefault("IBEX_CONFORMANCE_UNGATE", ""));
        for (String c : ungate.split(",")) {
            if (!c.isBlank()) {
                m.remove(Capability.valueOf(c.trim()));
            }
        }
        missing = Map.copyOf(m);
    }

    /** Opens the provider's fabric. */
    public Fabric open() {
        return Providers.byName(name).orElseThrow(() -> new IllegalStateException("no provider " + name))
                .open(config);
    }

    /** Opens a second, independent fabric of the provider while the first is open. */
    public Fabric openSecond() {
        return Providers.byName(name).orElseThrow(() -> new IllegalStateException("no provider " + name))
                .open(secondConfig);
    }

    public boolean has(Capability c) {
        return !missing.containsKey(c);
    }

    /** Skips the calling test, saying why, unless the provider has {@code c}. */
    public void assume(Capability c) {
        assumeTrue(has(c), () -> name + " lacks " + c + ": " + missing.get(c));
    }

    /** Whether both ends are on the same address (and device). */
    public boolean loopback() {
        return server.equals(client);
    }
}
