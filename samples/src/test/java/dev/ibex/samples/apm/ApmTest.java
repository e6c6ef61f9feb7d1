package dev.ibex.samples.apm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The apm port against itself over soft-roce, each "host" with two ports (server 127.0.0.3 / 127.0.0.13, client
 * 127.0.0.2 / 127.0.0.12): the alternate addresses travel in private data, a forced migration ({@code -m}) and an
 * automatic one (the primary cut through the client fabric's control file) are printed by both ends, and the
 * exchange completes.
 */
class ApmTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private static List<String> twoPorts(List<String> args, String devices) {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of("-D", "ibex.softroce.devices=" + devices, "-D", "ibex.softroce.timerScale=0.1"));
        return all;
    }

    private static SampleThread<Apm> server(SoftRoceHosts hosts, String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("-s", "-b", SoftRoceHosts.SERVER));
        a.addAll(List.of(args));
        SampleThread<Apm> s = SampleThread.start(Apm::new, twoPorts(hosts.server(a.toArray(String[]::new)),
                "srv=" + SoftRoceHosts.SERVER + "/127.0.0.13"));
        s.command().listening().get(30, TimeUnit.SECONDS);
        return s;
    }

    private static SampleThread<Apm> client(SoftRoceHosts hosts, List<String> extra, String... args) {
        List<String> a = new ArrayList<>(List.of("-a", SoftRoceHosts.SERVER));
        a.addAll(List.of(args));
        List<String> all = twoPorts(hosts.client(a.toArray(String[]::new)), "cli=" + SoftRoceHosts.CLIENT
                + "/127.0.0.12");
        all.addAll(extra);
        return SampleThread.start(Apm::new, all);
    }

    @Test
    void aForcedMigrationAfterMIterations() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Apm> server = server(hosts, "-c", "8", "-l", "4096", "-w", "20");
        SampleThread<Apm> client = client(hosts, List.of(), "-c", "8", "-l", "4096", "-w", "20", "-m", "3");
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
        assertThat(client.out()).contains("loading alt path - local port: 2, dgid: 127.0.0.13")
                .contains("QP path migrated to 127.0.0.12 -> 127.0.0.13 (port 2)")
                .contains("8 messages of 4096 bytes exchanged; path now 127.0.0.12 -> 127.0.0.13 (port 2)");
        assertThat(server.out()).contains("loading alt path - local port: 2, dgid: 127.0.0.12")
                .contains("QP path migrated to 127.0.0.13 -> 127.0.0.12 (port 2)");
    }

    @Test
    void anAutomaticMigrationWhenThePrimaryIsCutFromOutside() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        Path control = dir.resolve("faults");
        Files.writeString(control, "");
        SampleThread<Apm> server = server(hosts, "-c", "40", "-l", "1000", "-w", "20");
        SampleThread<Apm> client = client(hosts, List.of("-D", "ibex.softroce.fault.control=" + control), "-c", "40",
                "-l", "1000", "-w", "20");
        Awaitility.await().atMost(LIMIT).until(() -> client.out().contains("QP path armed")
                && server.out().contains("QP path armed"));
        Files.writeString(control, "cut " + SoftRoceHosts.CLIENT + " " + SoftRoceHosts.SERVER + "\n");
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
        assertThat(client.out()).contains("QP path migrated to 127.0.0.12 -> 127.0.0.13 (port 2)")
                .contains("40 messages of 1000 bytes exchanged");
        assertThat(server.out()).contains("QP path migrated to 127.0.0.13 -> 127.0.0.12 (port 2)");
    }

    @Test
    void aDeviceWithoutAlternateSaysSoAndArgumentsAreChecked() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Apm> noAlt = SampleThread.start(Apm::new, hosts.client("-a", SoftRoceHosts.SERVER, "-c", "1"));
        assertThat(noAlt.exitCode(LIMIT)).isNotZero();
        assertThat(noAlt.err()).contains("device does not support auto path migration");
        SampleThread<Apm> half = SampleThread.start(Apm::new, List.of("-a", "127.0.0.3", "-d", "127.0.0.13"));
        assertThat(half.exitCode(LIMIT)).isEqualTo(22);
        assertThat(half.err()).contains("-d and -r must be given together");
        SampleThread<Apm> noAddress = SampleThread.start(Apm::new, List.of("-c", "1"));
        assertThat(noAddress.exitCode(LIMIT)).isEqualTo(22);
        assertThat(noAddress.err()).contains("a client needs -a");
        SampleThread<Apm> late = SampleThread.start(Apm::new, List.of("-a", "127.0.0.3", "-c", "3", "-m", "5"));
        assertThat(late.exitCode(LIMIT)).isEqualTo(22);
    }
}
