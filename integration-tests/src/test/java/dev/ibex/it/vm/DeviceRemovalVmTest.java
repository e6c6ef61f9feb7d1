package dev.ibex.it.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.endpoint.ConnectionFailedException;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.ConnectionEvent;
import dev.ibex.cm.reactive.DatagramEndpoint;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaCmChannel;
import dev.ibex.cm.reactive.RdmaCmEvent;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaDatagram;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ResourceKind;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DEVICE_REMOVAL for real on the rdma-core provider: an extra rxe device on a dummy netdev of its own carries a
 * listener, an RC connection (both ends), a UD endpoint and a raw CM id; {@code rdma link delete} of the device, run in
 * the background (on Linux 6.1 it waits until every process has closed the device, since rxe cannot disassociate its
 * users), must end every endpoint with one typed error (of the two ends of the connection, both on the device, one
 * may hear its peer's disconnect first) and return within a bound because Ibex released the device:
 * the loops' PDs, CQs and channels on it, the async reader, and the provider's reference on librdmacm's context.
 */
@VmTest
class DeviceRemovalVmTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    /** How long the delete may take once the device is released (it takes well under a second when nobody holds it). */
    static final Duration DELETE_LIMIT = Duration.ofSeconds(60);
    static final String NETDEV = "ibexrm0";
    static final String DEVICE = "rxerm0";
    static final String ADDRESS = "10.91.0.1";

    private EventLoopGroup loops;

    @BeforeEach
    void addDevice() {
        removeDevice();
        GuestCommand.succeed("ip", "link", "add", NETDEV, "type", "dummy");
        GuestCommand.succeed("ip", "addr", "add", ADDRESS + "/24", "dev", NETDEV);
        GuestCommand.succeed("ip", "link", "set", NETDEV, "up");
        GuestCommand.succeed("rdma", "link", "add", DEVICE, "type", "rxe", "netdev", NETDEV);
        await().atMost(WAIT).until(() -> Files.readString(
                Path.of("/sys/class/infiniband", DEVICE, "ports/1/state")).contains("ACTIVE"));
        loops = EventLoopGroup.open("rdma-core", ProviderConfig.DEFAULT, LoopOptions.DEFAULT.withLoops(2));
    }

    @AfterEach
    void cleanUp() {
        try {
            if (loops != null) {
                loops.close();
            }
        } finally {
            removeDevice();
        }
    }

    @Test
    void deletingTheDeviceEndsEveryEndpointOnItTypedAndTheDeleteReturns() throws Exception {
        // the raw id first, while the loops are idle (a loop call waits at most 30 s, and TCG under load is slow)
        RdmaCmChannel channel = RdmaCmChannel.open(loops.next(), 16);
        CmId raw = channel.createId(PortSpace.UDP, null);
        List<RdmaCmEvent> rawEvents = new CopyOnWriteArrayList<>();
        channel.events().subscribe(rawEvents::add);
        channel.onLoop(() -> {
            raw.bind(new InetSocketAddress(ADDRESS, 0));
            return null;
        });

        List<RdmaConnection> accepted = new CopyOnWriteArrayList<>();
        DisposableServer server = RdmaServer.create().runOn(loops).host(ADDRESS).port(0)
                .handle(c -> {
                    accepted.add(c);
                    return c.onDispose();
                }).bindNow();
        Signals listener = new Signals();
        server.onDispose().subscribe(null, listener::error, listener::complete);
        RdmaConnection client = RdmaClient.create().runOn(loops)
                .remoteAddress(new InetSocketAddress(ADDRESS, server.port())).connectNow(WAIT);
        List<ConnectionEvent> clientEvents = new CopyOnWriteArrayList<>();
        client.events().subscribe(clientEvents::add);
        await().atMost(WAIT).until(() -> accepted.size() == 1);
        List<ConnectionEvent> serverEvents = new CopyOnWriteArrayList<>();
        accepted.get(0).events().subscribe(serverEvents::add);

        DatagramEndpoint datagram = RdmaDatagram.create().runOn(loops).host(ADDRESS).bindNow();
        Signals datagramReceive = new Signals();
        datagram.receive().subscribe(m -> m.release(), datagramReceive::error, datagramReceive::complete);

        long t0 = System.nanoTime();
        Process delete = new ProcessBuilder("rdma", "link", "delete", DEVICE).redirectErrorStream(true).start();
        try {
            // the raw id is the application's: it destroys it, as DEVICE_REMOVAL asks
            await().atMost(WAIT).until(() -> rawEvents.stream().anyMatch(e -> e.type() == CmEventType.DEVICE_REMOVAL));
            assertThat(rawEvents).filteredOn(e -> e.type() == CmEventType.DEVICE_REMOVAL).extracting(RdmaCmEvent::id)
                    .containsExactly(raw);
            channel.close();

            // Both ends are on the removed device: whichever hears DEVICE_REMOVAL first ends with the typed error, and
            // the other may hear its peer's disconnect before its own DEVICE_REMOVAL (the kernel orders them as it
            // likes). Each end closes once, with at most one error, and an error is always the typed one.
            int typed = 0;
            for (List<ConnectionEvent> events : List.of(clientEvents, serverEvents)) {
                await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e.type() == ConnectionEvent.Type.CLOSED));
                List<ConnectionEvent> errors = events.stream().filter(e -> e.type() == ConnectionEvent.Type.ERROR)
                        .toList();
                assertThat(errors).as(events.toString()).hasSizeLessThanOrEqualTo(1)
                        .allSatisfy(e -> assertThat(removal(e.cause())).as(e.cause().toString()).isTrue());
                assertThat(events).filteredOn(e -> e.type() == ConnectionEvent.Type.CLOSED).hasSize(1);
                typed += errors.size();
            }
            assertThat(typed).as("ends that reported DEVICE_REMOVAL").isGreaterThanOrEqualTo(1);
            await().atMost(WAIT).alias("the UD endpoint's receive ends").until(() -> datagramReceive.terminals() > 0);
            await().atMost(WAIT).alias("the listener ends").until(() -> listener.terminals() > 0);
            assertThat(datagramReceive.errors).as("the UD endpoint's receive").singleElement()
                    .satisfies(t -> assertThat(removal(t)).as(t.toString()).isTrue());
            assertThat(datagramReceive.completions).isZero();
            assertThat(listener.terminals()).as("the listener ends once").isEqualTo(1);
            listener.errors.forEach(t -> assertThat(removal(t)).as(t.toString()).isTrue());

            assertThat(delete.waitFor(DELETE_LIMIT.toSeconds(), TimeUnit.SECONDS))
                    .as("rdma link delete returned within " + DELETE_LIMIT + ": Ibex let go of the device").isTrue();
            String output = new String(delete.getInputStream().readAllBytes());
            assertThat(delete.exitValue()).as(output).isZero();
            System.out.printf("rdma link delete %s returned after %d ms%n", DEVICE,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            assertThat(Path.of("/sys/class/infiniband", DEVICE)).doesNotExist();
            assertThat(loops.fabric().devices()).noneMatch(d -> d.device().name().equals(DEVICE));
            // the rest of the fabric is untouched: its own device still serves
            assertThat(loops.fabric().devices()).anyMatch(d -> d.device().name().equals(SoftRoceVm.current().device()));
            await().atMost(WAIT).untilAsserted(() -> {
                var r = loops.fabric().resources();
                for (ResourceKind k : List.of(ResourceKind.CM_ID, ResourceKind.QUEUE_PAIR)) {
                    assertThat(r.get(k)).as(k + " in " + r).isZero();
                }
            });
            // a new endpoint on the gone address fails, typed
            assertThat(RdmaClient.create().runOn(loops).remoteAddress(new InetSocketAddress(ADDRESS, server.port()))
                    .connect().then(reactor.core.publisher.Mono.just("connected"))
                    .onErrorResume(t -> reactor.core.publisher.Mono.just(t.getClass().getSimpleName())).block(WAIT))
                    .isNotEqualTo("connected");
        } catch (Throwable t) {
            LoopDump.print(t.toString());
            throw t;
        } finally {
            if (delete.isAlive()) {
                // blocked in the kernel until this process closes the device: it finishes when the JVM exits
                System.out.println("rdma link delete " + DEVICE + " is still waiting for the device's users");
            }
        }
    }

    /** Whether {@code t} is Ibex's typed error for a removed device. */
    static boolean removal(Throwable t) {
        return t instanceof ConnectionFailedException f && f.reason() == ConnectionFailedException.Reason.DEVICE_REMOVAL
                || t instanceof RdmaConnectException c && c.reason() == RdmaConnectException.Reason.DEVICE_REMOVAL;
    }

    /** The terminal signals of one subscription. */
    static final class Signals {
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        volatile int completions;

        void error(Throwable t) {
            errors.add(t);
        }

        void complete() {
            completions++;
        }

        int terminals() {
            return errors.size() + completions;
        }
    }

    /** Deletes what an earlier run may have left (a delete still waiting is not retried). */
    private static void removeDevice() {
        try {
            if (Files.exists(Path.of("/sys/class/infiniband", DEVICE))) {
                GuestCommand.run(Duration.ofSeconds(30), "rdma", "link", "delete", DEVICE);
            }
            if (Files.exists(Path.of("/sys/class/net", NETDEV))) {
                GuestCommand.run(Duration.ofSeconds(30), "ip", "link", "delete", NETDEV);
            }
        } catch (IllegalStateException stillHeld) {
            System.out.println("cannot clean up " + DEVICE + ": " + stillHeld.getMessage());
        }
    }
}
