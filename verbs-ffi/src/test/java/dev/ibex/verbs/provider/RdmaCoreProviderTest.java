package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.RdmaProvider;
import dev.ibex.verbs.ffi.Libraries;
import dev.ibex.verbs.ffi.RdmaAvailability;
import org.junit.jupiter.api.Test;

/**
 * The provider on a machine without RDMA: unavailable with a readable reason, typed errors, no crash. The
 * no-device cases need rdma-core's libraries (they assert what the kernel answers); the missing-library case
 * runs where they are absent (a bare machine, or {@code mvn test} before the README's install step).
 */
class RdmaCoreProviderTest {

    private static boolean librariesPresent() {
        return Libraries.ibverbs().isAvailable() && Libraries.rdmacm().isAvailable();
    }

    private static void assumeNoRdma() {
        assumeTrue(librariesPresent(), "rdma-core libraries are not installed (" + Libraries.INSTALL
                + "): the no-device answers come from them");
        assumeFalse(RdmaAvailability.probe().usable(), "this machine has a usable RDMA device");
    }

    @Test
    void isFoundByServiceLoaderUnderItsName() {
        RdmaProvider p = Providers.byName("rdma-core").orElseThrow();
        assertThat(p).isInstanceOf(RdmaCoreProvider.class);
        assertThat(p.preferWhenAvailable()).isTrue();
    }

    @Test
    void probeIsUnavailableWithAReasonAUserCanActOn() {
        assumeNoRdma();
        ProviderStatus s = new RdmaCoreProvider().probe();
        assertThat(s.provider()).isEqualTo("rdma-core");
        assertThat(s.available()).isFalse();
        assertThat(s.devices()).isEmpty();
        assertThat(s.reason()).contains("no RDMA device").contains("soft-roce").containsAnyOf("ENOSYS", "ENODEV");
        if (!java.nio.file.Files.exists(java.nio.file.Path.of("/sys/class/infiniband_verbs"))) {
            assertThat(s.reason()).as("a kernel without RDMA support").contains("ENOSYS (Function not implemented)")
                    .contains("the kernel has no RDMA support");
        }
    }

    @Test
    void withoutTheLibrariesProbeAndOpenSayWhatToInstall() {
        assumeFalse(librariesPresent(), "rdma-core libraries are installed; this case needs them absent");
        ProviderStatus s = new RdmaCoreProvider().probe();
        assertThat(s.available()).isFalse();
        assertThat(s.reason()).contains("not found").contains(Libraries.INSTALL);
        assertThatThrownBy(() -> new RdmaCoreProvider().open(ProviderConfig.DEFAULT))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ELIBACC))
                .hasMessageContaining(Libraries.INSTALL);
        assertThat(Providers.select("rdma-core").name()).isEqualTo("rdma-core");
    }

    @Test
    void probingRepeatedlyNeverThrows() {
        RdmaCoreProvider p = new RdmaCoreProvider();
        for (int i = 0; i < 20; i++) {
            assertThat(p.probe()).isNotNull();
        }
    }

    @Test
    void openFailsWithATypedError() {
        assumeNoRdma();
        assertThatThrownBy(() -> new RdmaCoreProvider().open(ProviderConfig.DEFAULT))
                .isInstanceOfSatisfying(RdmaException.class, e -> {
                    assertThat(e.errno()).isIn(Errno.ENOSYS, Errno.ENODEV);
                    assertThat(e.verb()).isIn("ibv_get_device_list", "rdma_get_devices");
                    assertThat(e.getMessage()).contains("soft-roce");
                });
        assertThatThrownBy(() -> new RdmaCoreProvider().open(null)).isInstanceOf(RdmaException.class);
    }

    @Test
    void selectionWithoutDevicesDoesNotChooseRdmaCoreWhenAnotherProviderIsPresent() {
        assumeNoRdma();
        RdmaProvider chosen = Providers.select(null);
        if (Providers.byName(Providers.FALLBACK).isPresent()) {
            assertThat(chosen.name()).isEqualTo(Providers.FALLBACK);
        } else {
            // verbs-ffi alone: rdma-core is the only provider on the class path, and opening it says why it can't run
            assertThat(chosen.name()).isEqualTo("rdma-core");
            assertThatThrownBy(() -> chosen.open(ProviderConfig.DEFAULT)).isInstanceOf(RdmaException.class);
        }
        assertThat(Providers.select("rdma-core").name()).isEqualTo("rdma-core");
    }
}
