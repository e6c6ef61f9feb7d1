package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of a peer on the rdma-core provider (two JVMs in the Soft-RoCE VM): unlike soft-roce, where nothing
 * speaks for a dead process, the kernel's CM still owns the dead process's connections and sends a DREQ for each
 * when it cleans up its ids. So every survivor — sending, receiving, echoing or idle, with or without keepalive —
 * sees an orderly-looking DISCONNECTED, and {@code receive()} completes: the provider cannot tell a kill from a
 * close. (The transport retry bound still applies when the whole host is gone; rxe's retry_cnt 7 would be
 * infinite there, which is why Ibex defaults to 6.)
 */
@VmTest
class SurvivorVmTest {
    static final Duration LIMIT = Duration.ofSeconds(240);

    private final SoftRoceVm vm = SoftRoceVm.current();
    private final List<PeerProcess> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(PeerProcess::close);
    }

    private PeerProcess start(String name, String... args) {
        PeerProcess p = PeerProcess.start(name, SurvivorPeer.class, List.of("ibex.provider=rdma-core"), args);
        processes.add(p);
        return p;
    }

    @Test
    void afterKill9TheKernelDisconnectsEverySurvivor() {
        String address = vm.hosts().size() >= 2 ? vm.hosts().get(1).address() : vm.address();
        PeerProcess server = start("srv", "server", address, "0");
        String port = server.await("LISTENING ", LIMIT).substring("LISTENING ".length());
        PeerProcess client = start("cli", "client", address, port, "1000");
        client.await("CONNECTED", LIMIT);
        server.kill();
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        for (String role : SurvivorPeer.ROLES) {
            assertThat(client.output()).as(client.output()).contains("END " + role + " DISCONNECTED receive=complete");
        }
        assertThat(client.output()).doesNotContain("UP ");
    }
}
