package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmHost;
import dev.ibex.it.vm.VmTest;
import dev.ibex.samples.mckey.Mckey;
import dev.ibex.samples.rping.Rping;
import dev.ibex.samples.ucmatose.Ucmatose;
import dev.ibex.samples.udaddy.Udaddy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ports against rdma-core's tools between the VM's emulated hosts a and b ({@code --hosts 2}), through the
 * switch's bridges: the Java side is host b (its endpoints bound to b's addresses), the C tool host a, or the other
 * way round where the port chooses its source (UD endpoints bind their address; RC connections can bind one too,
 * {@code Connection.connect} with a source, used by the reactive VM tests between a and b).
 * Each case also requires packets on b's switch port, so the traffic crossed the wire.
 */
@VmTest
class CrossHostInteropVmTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private final SoftRoceVm vm = SoftRoceVm.current();
    private VmHost a;
    private VmHost b;

    @BeforeEach
    void hosts() {
        assumeTrue(vm.hosts().size() >= 2, "the VM was booted without --hosts 2");
        a = vm.hosts().get(0);
        b = vm.hosts().get(1);
    }

    @Test
    void rpingClientOnAToTheJavaServerOnB() throws Exception {
        SwitchPort port = new SwitchPort(vm, b.switchPort());
        long before = port.txPackets();
        JavaSample<Rping> server = JavaSample.start(Rping::new, "-s", "-a", b.address(), "-p", "7192", "-v");
        try {
            server.command().listening().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess client = ToolProcess.start("rping", "-c", "-a", b.address(), "-I", a.address(),
                    "-p", "7192", "-C", "10", "-v", "-V")) {
                assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
                assertThat(client.output().lines().filter(l -> l.startsWith("ping data: rdma-ping-"))).hasSize(10);
            }
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertThat(server.out().lines().filter(l -> l.startsWith("server ping data: rdma-ping-"))).hasSize(10);
        } finally {
            server.command().stop();
        }
        // 10 pings: 4 messages, a READ and a WRITE each, plus acknowledgements and the CM exchange
        assertThat(port.txPackets() - before).as("packets via " + port).isGreaterThanOrEqualTo(40);
    }

    @Test
    void ucmatoseClientOnAToTheJavaServerOnBOverFabric2() throws Exception {
        SwitchPort port = new SwitchPort(vm, b.switchPort2());
        long before = port.txPackets();
        JavaSample<Ucmatose> server = JavaSample.start(Ucmatose::new, "-b", b.address2(), "-p", "7477", "-c", "2",
                "-C", "10");
        try {
            server.command().listening().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess client = ToolProcess.start("ucmatose", "-b", a.address2(), "-s", b.address2(),
                    "-p", "7477", "-c", "2", "-C", "10")) {
                assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            }
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertThat(server.out()).contains("data transfers complete").contains("return status 0");
        } finally {
            server.command().stop();
        }
        assertThat(port.txPackets() - before).as("packets via " + port).isGreaterThanOrEqualTo(20);
    }

    @Test
    void javaUdaddyClientOnAToTheCServerOnB() {
        SwitchPort port = new SwitchPort(vm, b.switchPort());
        long before = port.txPackets();
        try (ToolProcess server = ToolProcess.start("udaddy", "-b", b.address(), "-c", "2", "-C", "10")) {
            RdmaCmListeners.awaitListening(7174, LIMIT, server);
            JavaSample<Udaddy> client = JavaSample.start(Udaddy::new, "-s", b.address(), "-b", a.address(),
                    "-c", "2", "-C", "10");
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertThat(server.output()).contains("data transfers complete").contains("return status 0");
        }
        assertThat(port.txPackets() - before).as("packets via " + port).isGreaterThanOrEqualTo(20);
    }

    @Test
    void javaMckeySenderOnAToTheCReceiverOnB() {
        SwitchPort port = new SwitchPort(vm, b.switchPort());
        long before = port.txPackets();
        try (ToolProcess receiver = ToolProcess.start("mckey", "-m", "239.1.3.1", "-b", b.address(), "-C", "10")) {
            receiver.awaitLine("receiving data transfers", LIMIT);
            JavaSample<Mckey> sender = JavaSample.start(Mckey::new, "-m", "239.1.3.1", "-b", a.address(), "-s",
                    "-C", "10", "--pause-ms", "500");
            assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
            assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
            assertThat(receiver.output()).contains("data transfers complete").contains("return status 0");
        }
        assertThat(port.txPackets() - before).as("packets via " + port).isGreaterThanOrEqualTo(10);
    }

    @Test
    void mckeySenderOnAToTheJavaReceiverOnB() throws Exception {
        SwitchPort port = new SwitchPort(vm, b.switchPort());
        long before = port.txPackets();
        JavaSample<Mckey> receiver = JavaSample.start(Mckey::new, "-m", "239.1.3.2", "-b", b.address(), "-C", "10");
        try {
            receiver.command().receiving().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess sender = ToolProcess.start("mckey", "-m", "239.1.3.2", "-b", a.address(), "-s",
                    "-C", "10")) {
                assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
            }
            assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
            assertThat(receiver.out()).contains("data transfers complete").contains("return status 0");
        } finally {
            receiver.command().stop();
        }
        assertThat(port.txPackets() - before).as("packets via " + port).isGreaterThanOrEqualTo(10);
    }
}
