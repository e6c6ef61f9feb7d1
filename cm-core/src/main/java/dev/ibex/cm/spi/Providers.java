package dev.ibex.cm.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds providers and applies the selection rule: an explicit name, else the {@value #PROPERTY}
 * system property, else the first available provider that prefers itself (rdma-core when it has a device),
 * else {@value #FALLBACK}. The chosen provider is logged once.
 */
public final class Providers {
    /** System property naming the provider to use. */
    public static final String PROPERTY = "ibex.provider";
    /** The provider that runs everywhere. */
    public static final String FALLBACK = "soft-roce";

    private static final Logger LOG = LoggerFactory.getLogger(Providers.class);
    private static final AtomicBoolean LOGGED = new AtomicBoolean();

    private Providers() {}

    /** {@return every provider on the class path, in ServiceLoader order} */
    public static List<RdmaProvider> all() {
        List<RdmaProvider> out = new ArrayList<>();
        ServiceLoader.load(RdmaProvider.class, Providers.class.getClassLoader()).forEach(out::add);
        return out;
    }

    /**
     * The provider called {@code name}, if present.
     *
     * @param name a provider name, e.g. {@code "soft-roce"}
     * @return the provider, or empty when none on the class path has that name
     */
    public static Optional<RdmaProvider> byName(String name) {
        return all().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /**
     * Applies the selection rule.
     *
     * @param explicit a provider name chosen by the caller, or {@code null}
     * @return the chosen provider (logged once per JVM)
     * @throws IllegalArgumentException when an explicitly named provider is not on the class path
     * @throws IllegalStateException when no provider can be found at all
     */
    public static RdmaProvider select(String explicit) {
        return select(explicit, all());
    }

    /**
     * The selection rule applied to a given list of providers (for tests and embedders with their own loading).
     *
     * @param explicit a provider name chosen by the caller, or {@code null}
     * @param all the providers to choose from
     * @return the chosen provider
     * @throws IllegalArgumentException when an explicitly named provider is not in {@code all}
     * @throws IllegalStateException when {@code all} is empty
     */
    public static RdmaProvider select(String explicit, List<RdmaProvider> all) {
        String wanted = explicit != null ? explicit : System.getProperty(PROPERTY);
        RdmaProvider chosen = null;
        String why;
        if (wanted != null && !wanted.isBlank()) {
            chosen = find(all, wanted.trim());
            if (chosen == null) {
                throw new IllegalArgumentException("no RDMA provider named '" + wanted + "' on the class path; found "
                        + all.stream().map(RdmaProvider::name).toList());
            }
            why = explicit != null ? "chosen explicitly" : "chosen by -D" + PROPERTY;
        } else {
            why = null;
            for (RdmaProvider p : all) {
                if (p.preferWhenAvailable()) {
                    ProviderStatus s = p.probe();
                    if (s.available() && !s.devices().isEmpty()) {
                        chosen = p;
                        why = "it sees devices " + s.devices();
                        break;
                    }
                }
            }
            if (chosen == null) {
                chosen = find(all, FALLBACK);
                why = "no RDMA device found";
            }
            if (chosen == null && !all.isEmpty()) {
                chosen = all.get(0);
                why = "only provider present";
            }
            if (chosen == null) {
                throw new IllegalStateException("no RDMA provider on the class path: add dev.ibex:soft-roce or dev.ibex:verbs-ffi");
            }
        }
        if (LOGGED.compareAndSet(false, true)) {
            LOG.info("RDMA provider: {} ({})", chosen.name(), why);
        }
        return chosen;
    }

    private static RdmaProvider find(List<RdmaProvider> all, String name) {
        for (RdmaProvider p : all) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }
}
