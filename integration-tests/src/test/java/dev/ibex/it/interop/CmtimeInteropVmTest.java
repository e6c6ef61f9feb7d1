package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import dev.ibex.samples.cmtime.Cmtime;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cmtime port against rdma-core's cmtime on rxe0: the C client and the Java client (step by step, and through
 * the endpoint API) against the same C server in the same run, and the C client against the Java server. Logs the
 * connection setup time of each (resolve address + resolve route + create QP + connect; for the endpoint API its
 * single connect step) and the Java/C setup-rate ratio, in two rounds (the first Java round includes class loading
 * and JIT warm-up): a first figure, not a benchmark.
 */
@VmTest
class CmtimeInteropVmTest {
    private static final Logger LOG = LoggerFactory.getLogger(CmtimeInteropVmTest.class);
    private static final Duration LIMIT = Duration.ofSeconds(180);
    private static final int CONNECTIONS = 50;
    private static final String[] SETUP = {"resolve addr", "resolve route", "create qp", "connect"};

    private final String addr = SoftRoceVm.current().address();

    @Test
    void javaAndCClientsAgainstTheCServer() {
        try (ToolProcess server = ToolProcess.start("cmtime", "-b", addr, "-p", "7475")) {
            RdmaCmListeners.awaitListening(7475, LIMIT, server);
            // two rounds in the same run: the first Java round also pays for class loading and the JIT
            for (int round = 1; round <= 2; round++) {
                String c = cClient(7475);
                String steps = javaClient(7475, false);
                String endpoints = javaClient(7475, true);
                CmtimeTable cTable = CmtimeTable.parse(c);
                CmtimeTable javaTable = CmtimeTable.parse(steps);
                CmtimeTable endpointTable = CmtimeTable.parse(endpoints);
                assertThat(cTable.totalMillis()).containsKeys(SETUP).containsKeys("disconnect", "destroy");
                assertThat(javaTable.totalMillis()).containsOnlyKeys(cTable.totalMillis().keySet());
                assertThat(endpointTable.totalMillis()).containsOnlyKeys("connect", "disconnect");
                double cSetup = cTable.sum(SETUP);
                double javaSetup = javaTable.sum(SETUP);
                double endpointSetup = endpointTable.sum("connect");
                LOG.info("cmtime round {}, {} connections on rxe0\n--- C client\n{}--- Java client (steps)\n{}"
                        + "--- Java client (endpoints)\n{}", round, CONNECTIONS, c, steps, endpoints);
                LOG.info(String.format(Locale.ROOT, "cmtime round %d setup (ms for %d connections): C %.1f, Java "
                        + "steps %.1f, Java endpoints %.1f; setup-rate ratio Java/C: steps %.2f, endpoints %.2f; "
                        + "disconnect (ms): C %.1f, Java steps %.1f, Java endpoints %.1f", round, CONNECTIONS,
                        cSetup, javaSetup, endpointSetup, cSetup / javaSetup, cSetup / endpointSetup,
                        cTable.sum("disconnect"), javaTable.sum("disconnect"), endpointTable.sum("disconnect")));
            }
        }
    }

    private String cClient(int port) {
        try (ToolProcess client = ToolProcess.start("cmtime", "-s", addr, "-p", Integer.toString(port), "-c",
                Integer.toString(CONNECTIONS))) {
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            return client.output();
        }
    }

    private String javaClient(int port, boolean endpoints) {
        JavaSample<Cmtime> client = endpoints
                ? JavaSample.start(Cmtime::new, "-s", addr, "-p", Integer.toString(port), "-c",
                        Integer.toString(CONNECTIONS), "--endpoints")
                : JavaSample.start(Cmtime::new, "-s", addr, "-p", Integer.toString(port), "-c",
                        Integer.toString(CONNECTIONS));
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        return client.out();
    }

    @Test
    void cClientAgainstTheJavaServer() throws Exception {
        JavaSample<Cmtime> server = JavaSample.start(Cmtime::new, "-b", addr, "-p", "7476");
        try {
            server.command().listening().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess client = ToolProcess.start("cmtime", "-s", addr, "-p", "7476", "-c",
                    Integer.toString(CONNECTIONS))) {
                assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
                assertThat(client.output()).doesNotContain("error");
                assertThat(CmtimeTable.parse(client.output()).totalMillis()).containsKeys(SETUP);
            }
        } finally {
            server.command().stop();
        }
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
    }
}
