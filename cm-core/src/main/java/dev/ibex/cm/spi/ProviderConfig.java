package dev.ibex.cm.spi;

import java.util.Map;
import java.util.Objects;

/**
 * Provider options as string properties (like JDBC URLs' properties), so that system properties,
 * CLIs and code can all set them. Each provider documents its keys; unknown keys are ignored.
 *
 * @param properties the options set in code; a key not set here falls back to the system property of that name
 */
public record ProviderConfig(Map<String, String> properties) {
    /** No options set: every key comes from system properties or the provider's default. */
    public static final ProviderConfig DEFAULT = new ProviderConfig(Map.of());

    /**
     * Copies the properties.
     *
     * @throws NullPointerException when {@code properties} or a key or value in it is {@code null}
     */
    public ProviderConfig {
        properties = Map.copyOf(properties);
    }

    /**
     * A configuration of these options.
     *
     * @param properties option names and values, copied
     * @return the configuration
     */
    public static ProviderConfig of(Map<String, String> properties) {
        return new ProviderConfig(properties);
    }

    /**
     * An option's value: set here, else the system property of that name, else the default.
     *
     * @param key the option's name, e.g. {@code fake.mode}
     * @param defaultValue what to return when it is set nowhere; may be {@code null}
     * @return the value
     */
    public String get(String key, String defaultValue) {
        return properties.getOrDefault(key, System.getProperty(key, defaultValue));
    }

    /**
     * An integer option, looked up as {@link #get} does.
     *
     * @param key the option's name
     * @param defaultValue what to return when it is set nowhere
     * @return the value
     * @throws NumberFormatException when the value is not an integer
     */
    public int getInt(String key, int defaultValue) {
        String v = get(key, null);
        return v == null ? defaultValue : Integer.parseInt(v.trim());
    }

    /**
     * A long option, looked up as {@link #get} does.
     *
     * @param key the option's name
     * @param defaultValue what to return when it is set nowhere
     * @return the value
     * @throws NumberFormatException when the value is not an integer
     */
    public long getLong(String key, long defaultValue) {
        String v = get(key, null);
        return v == null ? defaultValue : Long.parseLong(v.trim());
    }

    /**
     * A boolean option, looked up as {@link #get} does: {@code true} (any case) is true, anything else false.
     *
     * @param key the option's name
     * @param defaultValue what to return when it is set nowhere
     * @return the value
     */
    public boolean getBoolean(String key, boolean defaultValue) {
        String v = get(key, null);
        return v == null ? defaultValue : Boolean.parseBoolean(v.trim());
    }

    /**
     * A copy with one option set.
     *
     * @param key the option's name
     * @param value its value
     * @return the new configuration
     * @throws NullPointerException when {@code key} or {@code value} is {@code null}
     */
    public ProviderConfig with(String key, String value) {
        Objects.requireNonNull(key);
        Objects.requireNonNull(value);
        java.util.HashMap<String, String> m = new java.util.HashMap<>(properties);
        m.put(key, value);
        return new ProviderConfig(m);
    }
}
