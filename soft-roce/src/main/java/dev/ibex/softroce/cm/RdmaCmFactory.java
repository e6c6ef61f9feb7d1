package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.CmService;
import dev.ibex.softroce.SoftFabric;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Plugs the CM into every {@link SoftFabric} (ServiceLoader). Timings come from {@code ibex.softroce.cm.*}
 * system properties ({@link CmTimings#from}); every duration is further scaled by the fabric's
 * {@code ibex.softroce.timerScale}.
 */
public final class RdmaCmFactory implements CmService.Factory {
    private static final Map<SoftFabric, RdmaCm> BY_FABRIC = Collections.synchronizedMap(new WeakHashMap<>());

    @Override
    public CmService create(SoftFabric fabric) {
        FabricEnvironment env = new FabricEnvironment(fabric);
        RdmaCm cm = new RdmaCm(env, CmTimings.from(ProviderConfig.DEFAULT));
        env.attach(cm);
        BY_FABRIC.put(fabric, cm);
        cm.onClose(() -> {
            env.detach();
            BY_FABRIC.remove(fabric);
        });
        return cm;
    }

    /**
     * The CM of an open soft fabric (for its fault hooks and diagnostics), or {@code null} when the fabric is closed
     * or is not a soft fabric.
     */
    public static RdmaCm cmOf(dev.ibex.cm.spi.Fabric fabric) {
        return fabric instanceof SoftFabric f ? BY_FABRIC.get(f) : null;
    }
}
