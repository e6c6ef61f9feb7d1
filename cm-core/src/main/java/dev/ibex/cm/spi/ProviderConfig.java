package dev.ibex.cm.spi;

import java.util.Map;
import java.util.Objects;

/**
 * Provider options as string properties (like JDBC URLs' properties), so that system properties,
 * CLIs and code can all set them. Each provider documents its keys; unknown keys are ignored.
 */
public record ProviderConfig(Map<String, String> properties) {
    public static final ProviderConfig DEFAULT = new ProviderConfig(Map.of());

    public ProviderConfig {
        properties = Map.copyOf(properties);
    }

    public static ProviderConfig of(Map<String, String> properties) {
        return new ProviderConfig(properties);
    }

    public String get(String key, String defaultValue) {
        return properties.getOrDefault(key, System.getProperty(key, defaultValue));
    }

    public int getInt(String key, int defaultValue) {
        String v = get(key, null);
        return v == null ? defaultValue : Integer.parseInt(v.trim());
    }

    public long getLong(String key, long defaultValue) {
        String v = get(key, null);
        return v == null ? defaultValue : Long.parseLong(v.trim());
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        String v = get(key, null);
        return v == null ? defaultValue : Boolean.parseBoolean(v.trim());
    }

    public ProviderConfig with(String key, String value) {
        Objects.requireNonNull(key);
        Objects.requireNonNull(value);
        java.util.HashMap<String, String> m = new java.util.HashMap<>(properties);
        m.put(key, value);
        return new ProviderConfig(m);
    }
}
