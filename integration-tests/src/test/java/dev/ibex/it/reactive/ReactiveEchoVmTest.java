package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.interop.SwitchPort;
import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reactive echo of {@link ReactiveMultiProcessTest} on the rdma-core provider against the kernel's Soft-RoCE in
 * the VM: server and client in separate JVMs, private data, echo, RDMA READ/WRITE, clean disconnect. With the
 * two-host layout ({@code --hosts 2}) the server is host b and the client host a (its connection bound to a's
 * address with {@code RdmaClient.localHost}, as {@code rping -I}), and b's switch port must have carried the
 * traffic; without it both share rxe0.
 */
@VmTest
class ReactiveEchoVmTest {
    // JVM starts and the first connection are slow under TCG
    static final Duration LIMIT = Duration.ofSeconds(240);

    private final SoftRoceVm vm = SoftRoceVm.current();
    private final List<PeerProcess> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(PeerProcess::close);
    }

    private PeerProcess start(String name, String... args) {
        PeerProcess p = PeerProcess.start(name, List.of("ibex.provider=rdma-core"), args);
        processes.add(p);
        return p;
    }

    @Test
    void reactiveEchoBetweenTwoJvmsOnRdmaCore() {
        boolean twoHosts = vm.hosts().size() >= 2;
        String serverAddr = twoHosts ? vm.hosts().get(1).address() : vm.address();
        String clientAddr = twoHosts ? vm.hosts().get(0).address() : vm.address();
        SwitchPort port = twoHosts ? new SwitchPort(vm, vm.hosts().get(1).switchPort()) : null;
        long before = port == null ? 0 : port.txPackets();

        PeerProcess server = start("srv", "server", serverAddr, "0");
        String cmPort = server.await("LISTENING ", LIMIT).substring("LISTENING ".length());
        PeerProcess client = twoHosts ? start("cli", "client", serverAddr, cmPort, "20", clientAddr)
                : start("cli", "client", serverAddr, cmPort, "20");
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(client.output().lines()).containsSubsequence("FROM " + clientAddr, "ECHO OK 20", "RDMA OK",
                "DISCONNECTED", "OUT OF BOUNDS REFUSED"); // rxe: a window over a region of exactly the 128 bytes
        assertThat(server.await("ACCEPTED ", LIMIT)).isEqualTo("ACCEPTED hello");
        server.await("CLOSED", LIMIT);
        if (port != null) {
            // 20 echoes (a message each way), a READ, a WRITE, a READ, their ACKs and the CM exchange
            assertThat(port.txPackets() - before).as("packets to host b via " + port).isGreaterThanOrEqualTo(40);
        }
    }
}
