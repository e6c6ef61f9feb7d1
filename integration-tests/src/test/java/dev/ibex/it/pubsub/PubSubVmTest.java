package dev.ibex.it.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.it.vm.GuestCommand;
import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import dev.ibex.pubsub.PayloadTooLargeException;
import dev.ibex.pubsub.PubSub;
import dev.ibex.pubsub.PublisherState;
import dev.ibex.pubsub.TopicGroups;
import dev.ibex.pubsub.TopicPublisher;
import dev.ibex.pubsub.TopicSubscriber;
import dev.ibex.samples.pubsub.PubSubSample;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Pub/sub on the rdma-core provider against the kernel's Soft-RoCE in the VM. The sample as a user runs it: this
 * JVM publishes from host a, two subscriber JVMs on host b receive through the switch's bridge (both on rxe0
 * without {@code --hosts 2}), one leaves and re-joins; with two hosts, the switch port towards b drops 3 % of what
 * it forwards (netem), and the subscriber that stayed must count as lost messages and heartbeats what netem
 * dropped. And the typed errors, on rdma-core.
 */
@VmTest
class PubSubVmTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final Pattern LINE = Pattern.compile("subscriber (\\d): received (\\d+), lost (\\d+), out of order (\\d+), "
            + "duplicates (\\d+)(.*)");
    static final Pattern HEARTBEATS_LOST = Pattern.compile("heartbeats lost (\\d+)");

    private final SoftRoceVm vm = SoftRoceVm.current();
    private final boolean twoHosts = vm.hosts().size() >= 2;
    private final String here = twoHosts ? vm.hosts().get(0).address() : vm.address();
    private final String there = twoHosts ? vm.hosts().get(1).address() : vm.address();

    private GuestCommand tc(String... args) {
        List<String> cmd = new ArrayList<>(List.of("tc", "-n", vm.switchNetns()));
        cmd.addAll(List.of(args));
        return GuestCommand.run(Duration.ofSeconds(20), cmd.toArray(String[]::new));
    }

    /** Packets netem dropped on the switch port towards host b. */
    private long netemDropped(String port) {
        GuestCommand c = tc("-s", "qdisc", "show", "dev", port);
        Matcher m = Pattern.compile("dropped (\\d+)").matcher(c.output());
        assertThat(m.find()).as(c.output()).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void subscriberProcessesOnRdmaCoreCountWireLossAndOneReJoins() {
        String port = twoHosts ? vm.hosts().get(1).switchPort() : null;
        if (port != null) {
            GuestCommand add = tc("qdisc", "add", "dev", port, "root", "netem", "loss", "3%");
            assertThat(add.exitCode()).as(add.output()).isZero();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int n = 300;
        int rc;
        long dropped;
        try {
            PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
            rc = new CommandLine(new PubSubSample(o, e)).setOut(new PrintWriter(o, true))
                    .setErr(new PrintWriter(e, true))
                    .execute("--provider", "rdma-core", "--host", here, "--subscriber-host", there, "--subscribers", "2",
                            "--messages", Integer.toString(n), "--rate", "200", "--window", "2048", "--away-ms",
                            "300", "--heartbeat-ms", "200", "--timeout", "400",
                            // JVMs starting at once under TCG: C1 alone starts them in about half the time
                            "--child-jvm-option", "-XX:TieredStopAtLevel=1");
            dropped = port == null ? 0 : netemDropped(port);
        } finally {
            if (port != null) {
                tc("qdisc", "del", "dev", port, "root");
            }
        }
        String output = out.toString(StandardCharsets.UTF_8) + "\n--- stderr\n" + err.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(output).isZero();
        assertThat(output).contains("pub/sub on rdma-core").contains("subscriber 2: left at #")
                .contains("subscriber 2: re-joined in");
        long[] lost = new long[3];
        long[] beats = new long[3];
        int seen = 0;
        for (String line : out.toString(StandardCharsets.UTF_8).lines().map(String::strip).toList()) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                seen++;
                int i = Integer.parseInt(m.group(1));
                lost[i] = Long.parseLong(m.group(3));
                Matcher b = HEARTBEATS_LOST.matcher(m.group(6));
                beats[i] = b.find() ? Long.parseLong(b.group(1)) : 0;
                assertThat(Long.parseLong(m.group(5))).as(line).isZero(); // no duplicates on a real wire
            }
        }
        assertThat(seen).as(output).isEqualTo(2);
        if (port != null) {
            System.out.printf("pub/sub VM: netem dropped %d packets towards b; subscriber 1 counted %d lost messages "
                    + "and %d lost heartbeats%n", dropped, lost[1], beats[1]);
            assertThat(lost[1]).as("loss on the wire towards b, counted by sequence; " + output).isPositive();
            // subscriber 1 heard everything that crossed the link while it was up: every frame netem dropped was one
            // of its messages or heartbeats, bar a stray packet (IGMP) or the close frame, which nothing can reveal
            assertThat(lost[1] + beats[1]).as(output).isLessThanOrEqualTo(dropped)
                    .isGreaterThanOrEqualTo(dropped - 3);
        }
        System.out.println(output);
    }

    @Test
    void badInputFailsTypedOnRdmaCore() {
        try (EventLoopGroup loops = EventLoopGroup.open("rdma-core", ProviderConfig.DEFAULT,
                LoopOptions.DEFAULT.withLoops(1))) {
            PubSub pubsub = PubSub.create().runOn(loops).host(here)
                    .groups(TopicGroups.hashed("239.77." + (System.nanoTime() & 0xFF) + ".0/24"));
            TopicSubscriber sub = pubsub.subscriberNow("bad");
            TopicPublisher pub = pubsub.publisherNow("bad");
            int mtu = loops.fabric().devices().getFirst().queryPort(1).activeMtu().bytes();
            assertThat(pub.maxPayload()).as("the active MTU less the header").isEqualTo(mtu - 24);
            StepVerifier.create(pub.publish(Mono.just(new byte[pub.maxPayload() + 1])))
                    .expectError(PayloadTooLargeException.class).verify(WAIT);
            assertThat(pub.sequence()).isZero();
            pub.publish(Flux.just(new byte[pub.maxPayload()])).block(WAIT);
            Awaitility.await().atMost(WAIT).until(() -> sub.stats().received() == 1);
            assertThatThrownBy(() -> TopicGroups.DEFAULT.with("bad", "10.0.0.1"))
                    .isInstanceOf(IllegalArgumentException.class);
            StepVerifier.create(pubsub.host("10.99.99.99").subscriber("nowhere"))
                    .expectError(RdmaException.class).verify(WAIT);
            pub.close().block(WAIT);
            Awaitility.await().atMost(WAIT).until(() -> sub.publisherState() == PublisherState.CLOSED);
            sub.close().block(WAIT);
        }
    }
}
