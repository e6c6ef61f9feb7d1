package dev.ibex.samples.cmtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The cmtime port against its own server over soft-roce, step by step and through the endpoint API. */
class CmtimeTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);
    private static final String NUMBER = " +[0-9]+\\.[0-9]{2}";
    private static final String ROW = "%-13s:" + NUMBER.repeat(4);

    @Test
    void timesEveryStepOfTwentyConnectionsAndTheEndpointApi() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Cmtime> server = SampleThread.start(Cmtime::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "-p", "7471"));
        try {
            server.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Cmtime> steps = SampleThread.start(Cmtime::new,
                    hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7471", "-c", "20"));
            assertThat(steps.exitCode(LIMIT)).as(steps.output()).isZero();
            List<String> lines = steps.out().lines().toList();
            assertThat(lines).containsSubsequence("creating id", "resolving address", "resolving route", "creating qp",
                    "connecting", "disconnecting", "destroying id",
                    "step              total ms     max ms     min us  us / conn");
            for (String step : List.of("create id", "resolve addr", "resolve route", "create qp", "connect",
                    "disconnect", "destroy")) {
                assertThat(lines).anyMatch(l -> l.matches(String.format(ROW, step)));
            }
            assertThat(lines).noneMatch(l -> l.startsWith("bind addr"));

            SampleThread<Cmtime> endpoints = SampleThread.start(Cmtime::new,
                    hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7471", "-c", "20", "--endpoints"));
            assertThat(endpoints.exitCode(LIMIT)).as(endpoints.output()).isZero();
            List<String> rows = endpoints.out().lines().filter(l -> l.contains(": ")).toList();
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0)).matches(String.format(ROW, "connect"));
            assertThat(rows.get(1)).matches(String.format(ROW, "disconnect"));
        } finally {
            server.command().stop();
        }
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
    }

    @Test
    void aServerOnTwoLoopsSpreadsItsConnectionsOverBoth() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Cmtime> server = SampleThread.start(Cmtime::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "-p", "7494", "--loops", "2"));
        try {
            server.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Cmtime> steps = SampleThread.start(Cmtime::new,
                    hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7494", "-c", "10"));
            assertThat(steps.exitCode(LIMIT)).as(steps.output()).isZero();
            assertThat(server.command().servingThreads()).hasSize(2); // half of them moved (rdma_migrate_id)
        } finally {
            server.command().stop();
        }
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();

        SampleThread<Cmtime> oneLoop = SampleThread.start(Cmtime::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "-p", "7495"));
        try {
            oneLoop.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Cmtime> steps = SampleThread.start(Cmtime::new,
                    hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7495", "-c", "10"));
            assertThat(steps.exitCode(LIMIT)).as(steps.output()).isZero();
            assertThat(oneLoop.command().servingThreads()).hasSize(1);
        } finally {
            oneLoop.command().stop();
        }
        assertThat(oneLoop.exitCode(LIMIT)).as(oneLoop.output()).isZero();
    }

    @Test
    void repeatPrintsOneTablePerRunInOneJvm() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Cmtime> server = SampleThread.start(Cmtime::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "-p", "7493"));
        try {
            server.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Cmtime> steps = SampleThread.start(Cmtime::new,
                    hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7493", "-c", "5", "--repeat", "3"));
            assertThat(steps.exitCode(LIMIT)).as(steps.output()).isZero();
            List<String> lines = steps.out().lines().toList();
            assertThat(lines).filteredOn(l -> l.startsWith("step ")).hasSize(3);
            assertThat(lines).filteredOn(l -> l.matches(String.format(ROW, "connect"))).hasSize(3);
        } finally {
            server.command().stop();
        }
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
    }

    @Test
    void connectionsRejectedWithoutListenerAreCountedAsErrors() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Cmtime> server = SampleThread.start(Cmtime::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "-p", "7491"));
        try {
            server.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Cmtime> client = SampleThread.start(Cmtime::new,
                    hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7492", "-c", "3"));
            assertThat(client.exitCode(LIMIT)).as(client.output()).isEqualTo(1);
            assertThat(client.out().lines().filter(l -> l.equals("event: RDMA_CM_EVENT_REJECTED, error: 8")))
                    .hasSize(3);
        } finally {
            server.command().stop();
        }
    }
}
