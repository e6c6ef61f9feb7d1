package dev.ibex.cm.spi;

import java.util.List;

/**
 * What {@link RdmaProvider#probe()} found.
 *
 * @param provider provider name
 * @param available whether {@link RdmaProvider#open} can succeed
 * @param devices names of the devices it sees (may be empty even when available)
 * @param reason when not available: why, and what to do about it; otherwise a short description
 */
public record ProviderStatus(String provider, boolean available, List<String> devices, String reason) {
    /** Copies the device names. */
    public ProviderStatus {
        devices = List.copyOf(devices);
    }

    /**
     * A provider that can open here.
     *
     * @param provider the provider's name
     * @param devices names of the devices it sees
     * @param description a short description, e.g. {@code "in-memory test fabric"}
     * @return the status
     */
    public static ProviderStatus available(String provider, List<String> devices, String description) {
        return new ProviderStatus(provider, true, devices, description);
    }

    /**
     * A provider that cannot run here.
     *
     * @param provider the provider's name
     * @param reason why, and what to do about it
     * @return the status, with no devices
     */
    public static ProviderStatus unavailable(String provider, String reason) {
        return new ProviderStatus(provider, false, List.of(), reason);
    }
}
