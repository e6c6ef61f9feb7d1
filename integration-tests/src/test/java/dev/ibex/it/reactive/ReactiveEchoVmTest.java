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
 * The reactive echo of {@link ReactiveMultiProcessTest} on the rdma-core provider against the kernel's Soft-RoCE
 * (rxe0) in the VM: server and client in separate JVMs, private data, echo, RDMA READ/WRITE, clean disconnect.
 */
@VmTest
class ReactiveEchoVmTest {
    // JVM starts and the first connection are slow under TCG
    static final Duration LIMIT = Duration.ofSeconds(240);

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
        String addr = SoftRoceVm.current().address();
        PeerProcess server = start("srv", "server", addr, "0");
        String port = server.await("LISTENING ", LIMIT).substring("LISTENING ".length());
        PeerProcess client = start("cli", "client", addr, port, "20");
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(client.output().lines()).containsSubsequence("ECHO OK 20", "RDMA OK", "DISCONNECTED");
        assertThat(server.await("ACCEPTED ", LIMIT)).isEqualTo("ACCEPTED hello");
        server.await("CLOSED", LIMIT);
    }
}
