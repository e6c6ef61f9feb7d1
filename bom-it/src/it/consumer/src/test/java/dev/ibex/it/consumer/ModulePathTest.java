package dev.ibex.it.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.RdmaProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The consumer runs on the module path (surefire's default for a project with a module descriptor) with
 * {@code --illegal-native-access=deny --enable-native-access=dev.ibex.verbs,dev.ibex.softroce,dev.ibex.cm}: Ibex's modules are named, the
 * providers are found as services, internals stay unexported, and the modules that call native code may.
 */
class ModulePathTest {

    @Test
    void ibexRunsAsNamedModules() {
        assertEquals("dev.ibex.it.consumer", Echo.class.getModule().getName());
        assertEquals("dev.ibex.cm", EventLoopGroup.class.getModule().getName());
        assertEquals("dev.ibex.cm.reactive", dev.ibex.cm.reactive.RdmaServer.class.getModule().getName());
    }

    @Test
    void bothProvidersAreBoundAsServicesAndKeepTheirInternals() {
        List<String> modules = Providers.all().stream().map(p -> p.getClass().getModule().getName()).toList();
        assertTrue(modules.contains("dev.ibex.softroce"), modules::toString);
        assertTrue(modules.contains("dev.ibex.verbs"), modules::toString);
        Module verbs = Providers.byName("rdma-core").orElseThrow().getClass().getModule();
        assertTrue(verbs.isExported("dev.ibex.verbs.provider"));
        assertFalse(verbs.isExported("dev.ibex.verbs.ffi"), "the FFM bindings stay inside");
        Module soft = Providers.byName("soft-roce").orElseThrow().getClass().getModule();
        assertTrue(soft.isExported("dev.ibex.softroce"));
        assertFalse(soft.isExported("dev.ibex.softroce.wire"), "the wire format stays inside");
    }

    @Test
    void nativeAccessIsGrantedByModuleName() {
        RdmaProvider rdmaCore = Providers.byName("rdma-core").orElseThrow();
        assertTrue(rdmaCore.getClass().getModule().isNativeAccessEnabled());
        // denied, the bindings would say so in the probe's reason; granted, the reason is the machine's answer
        // (no device, no kernel support, or the libraries missing)
        ProviderStatus status = rdmaCore.probe();
        assertFalse(status.reason().contains("native access is denied"), status.reason());
        // soft-roce's libc sockets and cm-core's CPU reading for the adaptive spin: optional, granted here
        assertTrue(Providers.byName("soft-roce").orElseThrow().getClass().getModule().isNativeAccessEnabled());
        assertTrue(EventLoopGroup.class.getModule().isNativeAccessEnabled());
    }
}
