package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpState;

import dev.ibex.cm.spi.ProviderConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite against the rdma-core provider on Linux Soft-RoCE (rdma_rxe), inside the VM of
 * {@code lab/rxe-vm}. With the VM's two-host layout ({@code --hosts 2}) the client is host a and the server host b:
 * two rxe devices joined by a bridge, so every packet crosses a real (virtual) wire and address resolution uses ARP.
 * Without it both ends share {@code rxe0} on a NOARP dummy netdev.
 *
 * <p>What rxe in Linux 6.1 lacks, and so is skipped with this reason: automatic path migration (rxe sets
 * {@code IBV_DEVICE_AUTO_PATH_MIG}, but the kernel refuses alternate paths on RoCE with EINVAL),
 * {@code IBV_EVENT_QP_LAST_WQE_REACHED} (never raised) and
 * the IBTA status of a too-small RC receive (LOC_QP_OP_ERR instead of LOC_LEN_ERR).
 */
@Tag("vm")
class RdmaCoreConformanceVmTest extends ProviderConformanceSuite {

    @Override
    protected ProviderUnderTest createProvider() {
        Map<String, String> env = System.getenv();
        assumeTrue("1".equals(env.get("IBEX_VM")),
                "needs a kernel RDMA stack: runs inside the Soft-RoCE VM (lab/rxe-vm-tests, or lab/rxe-vm -- <cmd>)");
        String a = env.get("IBEX_HOST_A_ADDR");
        String b = env.get("IBEX_HOST_B_ADDR");
        InetAddress client;
        InetAddress server;
        InetAddress silent = null;
        Map<Capability, String> missing = missing(a != null && b != null);
        if (a != null && b != null) {
            client = address(a);
            server = address(b);
            silent = address(b.substring(0, b.lastIndexOf('.') + 1) + "99");
        } else {
            String vm = env.get("IBEX_VM_ADDR");
            assumeTrue(vm != null, "IBEX_VM_ADDR is not set: the VM was not set up by lab/rxe-vm");
            client = address(vm);
            server = client;
        }
        return new ProviderUnderTest("rdma-core", ProviderConfig.DEFAULT, ProviderConfig.DEFAULT, server, client, silent, missing,
                Duration.ofSeconds(60));
    }

    /**
     * What rdma_rxe in Linux 6.1 lacks, each with the reason a gated test shows (docs/capabilities.md is made from it).
     *
     * @param twoHosts the VM's two-host layout (two rxe devices joined by a bridge), as the VM tier runs it
     */
    static Map<Capability, String> missing(boolean twoHosts) {
        Map<Capability, String> missing = new EnumMap<>(Capability.class);
        missing.put(Capability.APM, "rdma_rxe sets IBV_DEVICE_AUTO_PATH_MIG, but Linux refuses alternate paths on "
                + "RoCE devices (ibv_modify_qp with IBV_QP_ALT_PATH: EINVAL), so nothing ever migrates");
        missing.put(Capability.TAG_MATCHING, "rdma_rxe reports tm_caps.max_num_tags 0: creating a tag-matching SRQ is "
                + "a typed ENOTSUP (TagMatchingConformance.tagMatchingSrqExistsExactlyWhenTmCapsSayIt)");
        missing.put(Capability.LAST_WQE_REACHED, "rdma_rxe in Linux 6.1 never raises IBV_EVENT_QP_LAST_WQE_REACHED");
        missing.put(Capability.LOCAL_LENGTH_ERROR, "rdma_rxe in Linux 6.1 completes an RC receive that is too small "
                + "with LOC_QP_OP_ERR, not LOC_LEN_ERR");
        if (!twoHosts) {
            missing.put(Capability.ADDRESS_RESOLUTION_TIMEOUT, "single-host layout: rxe0's netdev is a NOARP dummy, "
                    + "so every on-link address resolves at once (run with lab/rxe-vm --hosts 2)");
        }
        return missing;
    }

    /**
     * Not conformance but characterisation, so that the APM gate stays true: rxe claims automatic path migration, and
     * the kernel refuses every alternate path on RoCE (the RDMA core handles APM for InfiniBand only).
     */
    @Test
    void rxeClaimsApmButLinuxRefusesAlternatePathsOnRoce() {
        RcPair p = RcPair.connect(this);
        assertThat(p.client.device().queryDevice().supportsAutoPathMigration()).as("IBV_DEVICE_AUTO_PATH_MIG").isTrue();
        assertThat(p.client.device().queryPort(p.client.portNum()).linkLayer())
                .isEqualTo(PortAttributes.LINK_LAYER_ETHERNET);
        QpAttr now = p.clientQp.query(QpAttr.ALL);
        assertThatThrownBy(() -> p.clientQp.modify(new QpAttr().altPath(now.ahAttr(), now.portNum(), now.timeout())
                .altPkeyIndex(now.pkeyIndex()).pathMigState(MigState.REARM)))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThat(p.clientQp.state()).as("the refused modify changed nothing").isEqualTo(QpState.RTS);
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(ip, e);
        }
    }
}
