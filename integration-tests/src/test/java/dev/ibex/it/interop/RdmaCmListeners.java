package dev.ibex.it.interop;

import dev.ibex.it.vm.GuestCommand;
import java.time.Duration;
import org.awaitility.Awaitility;

/** Readiness of a C server: its listening rdma_cm id in the kernel's resource table ({@code rdma resource}). */
final class RdmaCmListeners {
    private RdmaCmListeners() {}

    /** Waits at most {@code limit} until an id listens on {@code port}. */
    static void awaitListening(int port, Duration limit, ToolProcess server) {
        Awaitility.await(server + " listens on port " + port).atMost(limit).pollInterval(Duration.ofMillis(200))
                .failFast("the server exited", () -> server.output().contains("return status"))
                .until(() -> GuestCommand.run(Duration.ofSeconds(20), "rdma", "resource", "show", "cm_id").output()
                        .lines().anyMatch(l -> l.contains("state LISTEN") && l.contains(":" + port + " ")));
    }
}
