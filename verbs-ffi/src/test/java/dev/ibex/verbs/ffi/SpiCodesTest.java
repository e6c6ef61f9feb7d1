package dev.ibex.verbs.ffi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.verbs.ffi.constant.IbvAccessFlags;
import dev.ibex.verbs.ffi.constant.IbvEventType;
import dev.ibex.verbs.ffi.constant.IbvMigState;
import dev.ibex.verbs.ffi.constant.IbvMtu;
import dev.ibex.verbs.ffi.constant.IbvQpState;
import dev.ibex.verbs.ffi.constant.IbvQpType;
import dev.ibex.verbs.ffi.constant.IbvWcStatus;
import dev.ibex.verbs.ffi.constant.RdmaCmEventType;
import dev.ibex.verbs.ffi.constant.RdmaPortSpace;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The codes of cm-core's SPI enums equal the C values (through the constant classes, which
 * {@link CLayoutTest} checks against the headers), so the rdma-core provider can pass them straight through.
 */
class SpiCodesTest {

    @Test
    void spiEnumCodesEqualTheCValues() throws Exception {
        List<String> mismatches = new ArrayList<>();
        check(mismatches, CmEventType.class, RdmaCmEventType.class, "RDMA_CM_EVENT_", "code");
        check(mismatches, AsyncEventType.class, IbvEventType.class, "IBV_EVENT_", "code");
        check(mismatches, MigState.class, IbvMigState.class, "IBV_MIG_", "code");
        check(mismatches, Mtu.class, IbvMtu.class, "IBV_", "code");
        check(mismatches, PortSpace.class, RdmaPortSpace.class, "RDMA_PS_", "code");
        check(mismatches, QpState.class, IbvQpState.class, "IBV_QPS_", "code");
        check(mismatches, QpType.class, IbvQpType.class, "IBV_QPT_", "code");
        check(mismatches, WcStatus.class, IbvWcStatus.class, "IBV_WC_", "code");
        check(mismatches, Access.class, IbvAccessFlags.class, "IBV_ACCESS_", "bit");
        assertThat(mismatches).isEmpty();
    }

    private static void check(List<String> mismatches, Class<? extends Enum<?>> spi, Class<?> constants, String prefix,
            String accessor) throws ReflectiveOperationException {
        for (Enum<?> e : spi.getEnumConstants()) {
            int spiValue = (int) spi.getMethod(accessor).invoke(e);
            String cName = prefix + e.name();
            try {
                int cValue = constants.getField(cName).getInt(null);
                if (cValue != spiValue) {
                    mismatches.add(spi.getSimpleName() + "." + e.name() + " = " + spiValue + " but " + cName + " = " + cValue);
                }
            } catch (NoSuchFieldException missing) {
                mismatches.add(spi.getSimpleName() + "." + e.name() + " has no C constant " + cName);
            }
        }
    }
}
