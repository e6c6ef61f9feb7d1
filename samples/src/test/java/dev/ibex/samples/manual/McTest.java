package dev.ibex.samples.manual;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The multicast example's port against itself over soft-roce: join, four messages, the listing's lines. */
class McTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void aSenderReachesAReceiverThroughTheGroup() {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Mc> receiver = SampleThread.start(Mc::new,
                hosts.server("-m", "239.1.2.7", "-b", SoftRoceHosts.SERVER));
        Awaitility.await().atMost(LIMIT).until(() -> receiver.out().contains("waiting for messages...")
                || receiver.isDone());
        SampleThread<Mc> sender = SampleThread.start(Mc::new,
                hosts.client("-s", "-m", "239.1.2.7", "-b", SoftRoceHosts.CLIENT));
        assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
        assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
        assertThat(receiver.out().lines()).containsExactly("joined dgid: ::ffff:239.1.2.7, mlid 0x0, sl 0",
                "waiting for messages...", "received message 1", "received message 2", "received message 3",
                "received message 4");
        assertThat(sender.out().lines()).containsExactly("joined dgid: ::ffff:239.1.2.7, mlid 0x0, sl 0",
                "sent message 1", "sent message 2", "sent message 3", "sent message 4");
        assertThat(receiver.err() + sender.err()).isEmpty();
    }

    @Test
    void aMessageLargerThanTheMtuIsRefusedBeforeAnythingIsSent() {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Mc> sender = SampleThread.start(Mc::new,
                hosts.client("-s", "-m", "239.1.2.8", "-b", SoftRoceHosts.CLIENT, "-l", "100000"));
        // mc.c jumps to its out label, whose rdma_leave_multicast of a group never joined fails: -1
        assertThat(sender.exitCode(LIMIT)).as(sender.output()).isEqualTo(-1);
        assertThat(sender.out()).matches("buffer length 100000 is larger then active mtu \\d+\\n");
        assertThat(sender.err()).isEqualTo("rdma_leave_multicast returned -1 errno 99\n");
    }

    @Test
    void theGroupIsRequired() {
        SampleThread<Mc> mc = SampleThread.start(Mc::new, List.of("-s"));
        assertThat(mc.exitCode(LIMIT)).isEqualTo(1);
        assertThat(mc.out()).isEqualTo("multicast address must be specified with -m\n");
    }
}
