package dev.ibex.it.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Runs on the host: how VM tests learn their environment, and how they fail outside the VM. */
class SoftRoceVmTest {

    @Test
    void outsideTheVmTheErrorSaysHowToRunTheTest() {
        assertThatThrownBy(() -> SoftRoceVm.from(Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lab/rxe-vm-tests");
    }

    @Test
    void readsTheSingleDeviceAndEveryHost() {
        SoftRoceVm vm = SoftRoceVm.from(Map.ofEntries(
                Map.entry("IBEX_VM", "1"), Map.entry("IBEX_VM_ADDR", "169.254.77.1"), Map.entry("IBEX_VM_DEV", "rxe0"),
                Map.entry("IBEX_HOSTS", "a b"), Map.entry("IBEX_SWITCH_NETNS", "ibex-sw"),
                Map.entry("IBEX_HOST_A_ADDR", "10.77.1.1"), Map.entry("IBEX_HOST_A_ADDR2", "10.77.2.1"),
                Map.entry("IBEX_HOST_A_DEV", "rxe_a1"), Map.entry("IBEX_HOST_A_DEV2", "rxe_a2"),
                Map.entry("IBEX_HOST_A_SWPORT", "sw-a1"), Map.entry("IBEX_HOST_A_SWPORT2", "sw-a2"),
                Map.entry("IBEX_HOST_B_ADDR", "10.77.1.2"), Map.entry("IBEX_HOST_B_ADDR2", "10.77.2.2"),
                Map.entry("IBEX_HOST_B_DEV", "rxe_b1"), Map.entry("IBEX_HOST_B_DEV2", "rxe_b2"),
                Map.entry("IBEX_HOST_B_SWPORT", "sw-b1"), Map.entry("IBEX_HOST_B_SWPORT2", "sw-b2")));
        assertThat(vm.address()).isEqualTo("169.254.77.1");
        assertThat(vm.device()).isEqualTo("rxe0");
        assertThat(vm.switchNetns()).isEqualTo("ibex-sw");
        assertThat(vm.hosts()).containsExactly(
                new VmHost("a", "10.77.1.1", "10.77.2.1", "rxe_a1", "rxe_a2", "sw-a1", "sw-a2"),
                new VmHost("b", "10.77.1.2", "10.77.2.2", "rxe_b1", "rxe_b2", "sw-b1", "sw-b2"));
    }

    @Test
    void aHostWithAMissingVariableIsAnError() {
        assertThatThrownBy(() -> SoftRoceVm.from(Map.of("IBEX_VM", "1", "IBEX_VM_ADDR", "169.254.77.1",
                "IBEX_VM_DEV", "rxe0", "IBEX_HOSTS", "a")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("IBEX_HOST_A_ADDR");
    }

    @Test
    void ipv4GidIsTheMappedAddressAsSysfsPrintsIt() {
        assertThat(SoftRoceVm.ipv4Gid("169.254.77.1")).isEqualTo("0000:0000:0000:0000:0000:ffff:a9fe:4d01");
        assertThat(SoftRoceVm.ipv4Gid("10.77.1.2")).isEqualTo("0000:0000:0000:0000:0000:ffff:0a4d:0102");
        assertThatThrownBy(() -> SoftRoceVm.ipv4Gid("fe80::1")).isInstanceOf(IllegalArgumentException.class);
    }
}
