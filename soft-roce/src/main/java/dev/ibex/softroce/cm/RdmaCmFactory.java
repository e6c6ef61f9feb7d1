package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.CmService;
import dev.ibex.softroce.SoftFabric;

/**
 * Plugs the CM into every {@link SoftFabric} (ServiceLoader). Timings come from {@code ibex.softroce.cm.*}
 * system properties ({@link CmTimings#from}); every duration is further scaled by the fabric's
 * {@code ibex.softroce.timerScale}.
 */
public final class RdmaCmFactory implements CmService.Factory {
    @Override
    public CmService create(SoftFabric fabric) {
        FabricEnvironment env = new FabricEnvironment(fabric);
        RdmaCm cm = new RdmaCm(env, CmTimings.from(ProviderConfig.DEFAULT));
        env.attach(cm);
        cm.onClose(env::detach);
        return cm;
    }
}
