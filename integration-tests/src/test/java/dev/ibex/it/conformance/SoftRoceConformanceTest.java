package dev.ibex.it.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.RdmaProvider;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The conformance suite against the soft-roce provider on this host: two soft devices on two loopback addresses
 * (client 127.0.0.2, server 127.0.0.3; each with a second GID, 127.0.0.12 / 127.0.0.13, so APM runs too) and a UDP
 * port of their own. Runs as soon as the provider is on the class
 * path and can open a fabric with a CM; until then it is skipped, saying why.
 */
class SoftRoceConformanceTest extends ProviderConformanceSuite {

    @Override
    protected ProviderUnderTest createProvider() {
        Optional<RdmaProvider> soft = Providers.byName("soft-roce");
        assumeTrue(soft.isPresent(), "the soft-roce provider is not on the class path");
        int port = 30_000 + (int) (ProcessHandle.current().pid() % 20_000) + portOffset();
        ProviderConfig config = config(port);
        String why = unusable(soft.get(), config);
        assumeTrue(why == null, () -> "soft-roce cannot run the suite yet: " + why);
        return new ProviderUnderTest("soft-roce", config, config(port + 1), address("127.0.0.3"), address("127.0.0.2"),
                null, missing(), Duration.ofSeconds(20));
    }

    /** Added to the suite's UDP ports, so that variants of it in one JVM never share a port. */
    protected int portOffset() {
        return 0;
    }

    /** What soft-roce lacks, each with the reason a gated test shows (docs/capabilities.md is made from it). */
    static Map<Capability, String> missing() {
        Map<Capability, String> missing = new EnumMap<>(Capability.class);
        missing.put(Capability.ADDRESS_RESOLUTION_TIMEOUT, "soft devices resolve addresses locally: nothing to time out");
        return missing;
    }

    private static ProviderConfig config(int port) {
        return ProviderConfig.of(Map.of(
                // a second GID on each device: an alternate path exists, so the devices claim AUTO_PATH_MIG
                "ibex.softroce.devices", "soft0=127.0.0.2+127.0.0.12,soft1=127.0.0.3+127.0.0.13",
                "ibex.softroce.port", Integer.toString(port),
                "ibex.softroce.timerScale", "0.01"));
    }

    /** Why the provider cannot run the suite here, or {@code null}: it must open a fabric and an event channel. */
    private static String unusable(RdmaProvider p, ProviderConfig config) {
        try (Fabric f = p.open(config)) {
            f.createEventChannel().close();
            return null;
        } catch (RuntimeException | LinkageError e) {
            return e.toString();
        }
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(ip, e);
        }
    }
}
