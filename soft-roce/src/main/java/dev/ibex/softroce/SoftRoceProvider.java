package dev.ibex.softroce;

import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.RdmaProvider;
import java.util.List;

/**
 * The embedded default provider: RDMA verbs and CM in pure Java over UDP, speaking RoCEv2. Always available (it
 * needs no kernel support); its devices are whatever {@value SoftRoceConfig#DEVICES} names (default
 * {@value SoftRoceConfig#DEFAULT_DEVICES}). Settings: {@code soft-roce/README.md}.
 */
public final class SoftRoceProvider implements RdmaProvider {
    /** The provider's name. */
    public static final String NAME = "soft-roce";

    /** The provider; {@link java.util.ServiceLoader} creates it, applications choose it by {@link #NAME}. */
    public SoftRoceProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProviderStatus probe() {
        try {
            SoftRoceConfig c = SoftRoceConfig.from(ProviderConfig.DEFAULT);
            List<String> names = c.devices().stream().map(DeviceConfig::name).toList();
            return ProviderStatus.available(NAME, names, "software RoCEv2 over UDP port " + c.udpPort() + " on "
                    + c.devices());
        } catch (RuntimeException e) {
            return ProviderStatus.unavailable(NAME, "invalid soft-roce settings: " + e.getMessage());
        }
    }

    @Override
    public Fabric open(ProviderConfig config) {
        // nobody chose the devices: a second process on default settings takes the next free loopback address
        boolean chosen = config.get(SoftRoceConfig.DEVICES, null) != null;
        return new SoftFabric(SoftRoceConfig.from(config), !chosen);
    }
}
