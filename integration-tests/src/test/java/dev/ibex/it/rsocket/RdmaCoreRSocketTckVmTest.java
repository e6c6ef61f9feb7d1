package dev.ibex.it.rsocket;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.it.vm.VmTest;
import dev.ibex.rsocket.TckPairs;
import io.netty.util.ResourceLeakDetector;
import io.rsocket.test.TransportTest;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * RSocket's transport TCK over Ibex on the rdma-core provider against the kernel's Soft-RoCE (rdma_rxe) in the VM
 * tier. By default a subset that fits the tier's time under TCG: requestResponse1/10/100, requestStream5,
 * fireAndForget10, metadataPush10; {@code -Dibex.rsocket.tck=full} runs all 20 ({@code lab/rsocket-tck-vm} does that
 * in one boot and prints its wall time). With the two-host layout the server is host b and the client connects from
 * host a; otherwise both use rxe0.
 */
@VmTest
@ExtendWith(RdmaCoreRSocketTckVmTest.Subset.class)
class RdmaCoreRSocketTckVmTest implements TransportTest {
    static final Set<String> SUBSET = Set.of("requestResponse1", "requestResponse10", "requestResponse100",
            "requestStream5", "fireAndForget10", "metadataPush10");

    static EventLoopGroup serverLoops;
    static EventLoopGroup clientLoops;
    static String serverIp;
    static String clientIp;
    TransportPair<?, ?> pair;

    /** Runs only the subset unless {@code ibex.rsocket.tck=full}. */
    static final class Subset implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            Method m = context.getTestMethod().orElse(null);
            if (m == null || "full".equals(System.getProperty("ibex.rsocket.tck")) || SUBSET.contains(m.getName())) {
                return ConditionEvaluationResult.enabled("in the VM subset");
            }
            return ConditionEvaluationResult.disabled("not in the VM subset (-Dibex.rsocket.tck=full runs it; "
                    + "lab/rsocket-tck-vm)");
        }
    }

    @BeforeAll
    static void openLoops() {
        Map<String, String> env = System.getenv();
        assumeTrue("1".equals(env.get("IBEX_VM")),
                "needs a kernel RDMA stack: runs inside the Soft-RoCE VM (lab/rxe-vm-tests)");
        String a = env.get("IBEX_HOST_A_ADDR");
        String b = env.get("IBEX_HOST_B_ADDR");
        if (a != null && b != null) {
            clientIp = a;
            serverIp = b;
        } else {
            serverIp = env.get("IBEX_VM_ADDR");
            assumeTrue(serverIp != null, "IBEX_VM_ADDR is not set: the VM was not set up by lab/rxe-vm");
        }
        // the TCK hands out its leak-tracking allocators (and asserts no leak) only at ADVANCED or PARANOID
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.ADVANCED);
        LoopOptions options = LoopOptions.DEFAULT.withLoops(1).withCloseTimeout(Duration.ofSeconds(5))
                .withBuffers(BufferPool.Options.DEFAULT.withSlabs(64, 4096));
        serverLoops = EventLoopGroup.open("rdma-core", ProviderConfig.DEFAULT, options.withThreadName("rs-srv"));
        clientLoops = EventLoopGroup.open("rdma-core", ProviderConfig.DEFAULT, options.withThreadName("rs-cli"));
    }

    @AfterAll
    static void closeLoops() {
        if (clientLoops != null) {
            clientLoops.close();
        }
        if (serverLoops != null) {
            serverLoops.close();
        }
    }

    @BeforeEach
    void createPair() {
        pair = TckPairs.pair(serverLoops, serverIp, clientLoops, clientIp, false, false);
    }

    @Override
    public Duration getTimeout() {
        return Duration.ofMinutes(5); // TCG runs the JVM about 10x slower
    }

    @Override
    public TransportPair getTransportPair() {
        return pair;
    }
}
