package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.endpoint.ConnectionFailedException;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.transport.SoftDevice;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

/**
 * DEVICE_REMOVAL and ADDR_CHANGE for real on soft-roce: closing a soft device ends every endpoint on it with a typed
 * error (a server listening on it: {@code onDispose()} errors with the listener's failure) and releases what they held; a bonding failover ({@link SoftFabric#bondingFailover}) reaches the ids bound to
 * the address as ADDR_CHANGE and leaves connections up.
 */
@Timeout(90)
class DeviceLossTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void closingASoftDeviceEndsEveryEndpointOnItWithATypedError() throws Exception {
        try (SoftHosts hosts = new SoftHosts("cli=" + SoftHosts.CLIENT_IP + ",other=127.0.0.13")) {
            DisposableServer server = hosts.rdmaServer().handle(c -> c.onDispose()).bindNow();
            List<ConnectionEvent> events = new CopyOnWriteArrayList<>();
            List<RdmaConnection> clients = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 3; i++) {
                RdmaConnection c = hosts.rdmaClient(server).connectNow(WAIT);
                c.events().subscribe(events::add);
                clients.add(c);
            }
            // a raw id on the device, and one on the fabric's other device, which stays
            RdmaCmChannel ch = RdmaCmChannel.open(hosts.client.next(), 16);
            CmId raw = ch.createId(PortSpace.TCP, null);
            CmId elsewhere = ch.createId(PortSpace.TCP, null);
            List<RdmaCmEvent> rawEvents = new CopyOnWriteArrayList<>();
            ch.events().subscribe(rawEvents::add);
            ch.onLoop(() -> {
                raw.bind(new InetSocketAddress(SoftHosts.CLIENT_IP, 0));
                elsewhere.bind(new InetSocketAddress("127.0.0.13", 0));
                return null;
            });
            await().atMost(WAIT).until(() -> events.stream()
                    .filter(e -> e.type() == ConnectionEvent.Type.ESTABLISHED).count() == 3);
            // a server listening on the device: its onDispose() ends with the listener's typed failure
            DisposableServer onDevice = RdmaServer.create().runOn(hosts.client).host(SoftHosts.CLIENT_IP).port(0)
                    .bindNow();
            var listenerEnd = onDevice.onDispose().then(Mono.just("completed"))
                    .onErrorResume(t -> Mono.just(t instanceof dev.ibex.cm.RdmaConnectException x
                            && x.reason() == dev.ibex.cm.RdmaConnectException.Reason.DEVICE_REMOVAL
                            ? "DEVICE_REMOVAL" : t.toString())).toFuture();

            ((SoftDevice) hosts.clientFabric.devices().get(0)).close();
            assertThat(listenerEnd.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                    .isEqualTo("DEVICE_REMOVAL");
            assertThat(onDevice.isDisposed()).isTrue();
            onDevice.disposeNow(WAIT); // after the failure: returns at once, throws nothing

            await().atMost(WAIT).until(() -> events.stream()
                    .filter(e -> e.type() == ConnectionEvent.Type.CLOSED).count() == 3);
            List<Throwable> errors = events.stream().filter(e -> e.type() == ConnectionEvent.Type.ERROR)
                    .map(ConnectionEvent::cause).toList();
            assertThat(errors).hasSize(3).allSatisfy(t -> assertThat(t).isInstanceOfSatisfying(
                    ConnectionFailedException.class,
                    f -> assertThat(f.reason()).isEqualTo(ConnectionFailedException.Reason.DEVICE_REMOVAL)));
            for (RdmaConnection c : clients) {
                assertThat(c.onDispose().block(WAIT)).isNull();
            }
            await().atMost(WAIT).until(() -> rawEvents.stream().anyMatch(e -> e.type() == CmEventType.DEVICE_REMOVAL));
            assertThat(rawEvents).filteredOn(e -> e.type() == CmEventType.DEVICE_REMOVAL)
                    .extracting(RdmaCmEvent::id).containsExactly(raw);
            ch.close(); // the user destroys the removed id, as DEVICE_REMOVAL asks
            // every connection's id and QP is gone from the client fabric, and so is what the loop held on the
            // device (PD, CQs, completion channel, registered buffers, SRQ): released now, not at shutdown
            await().atMost(WAIT).untilAsserted(() -> {
                var r = hosts.clientFabric.resources();
                assertThat(r.get(ResourceKind.CM_ID)).as(r.toString()).isZero();
                for (ResourceKind k : List.of(ResourceKind.QUEUE_PAIR, ResourceKind.SHARED_RECEIVE_QUEUE,
                        ResourceKind.COMPLETION_QUEUE, ResourceKind.COMPLETION_CHANNEL, ResourceKind.MEMORY_REGION,
                        ResourceKind.PROTECTION_DOMAIN)) {
                    assertThat(r.get(k)).as(k + " in " + r).isZero();
                }
            });
            // a new connection from the removed address fails, typed, at once
            assertThat(hosts.rdmaClient(server).bindAddress(new InetSocketAddress(SoftHosts.CLIENT_IP, 0))
                    .connect().then(Mono.just("connected")).onErrorResume(t -> Mono.just(t.getClass().getSimpleName()))
                    .block(WAIT)).isNotEqualTo("connected");
            server.disposeNow(WAIT);
        }
    }

    @Test
    void aBondingFailoverIsAnAddressChangeAndTheConnectionStays() throws Exception {
        try (SoftHosts hosts = new SoftHosts()) {
            DisposableServer server = hosts.rdmaServer()
                    .handle(c -> c.send(c.receive().map(Message::toByteArray))).bindNow();
            RdmaConnection client = hosts.rdmaClient(server).connectNow(WAIT);
            List<ConnectionEvent.Type> seen = new CopyOnWriteArrayList<>();
            client.events().map(ConnectionEvent::type).subscribe(seen::add);
            RdmaCmChannel ch = RdmaCmChannel.open(hosts.client.next(), 16);
            CmId raw = ch.createId(PortSpace.TCP, null);
            List<RdmaCmEvent> rawEvents = new CopyOnWriteArrayList<>();
            ch.events(raw).subscribe(rawEvents::add);
            ch.onLoop(() -> {
                raw.bind(new InetSocketAddress(SoftHosts.CLIENT_IP, 0));
                return null;
            });
            await().atMost(WAIT).until(() -> seen.contains(ConnectionEvent.Type.ESTABLISHED));

            ((SoftFabric) hosts.clientFabric).bondingFailover(InetAddress.getByName(SoftHosts.CLIENT_IP));

            await().atMost(WAIT).until(() -> seen.contains(ConnectionEvent.Type.ADDRESS_CHANGED));
            await().atMost(WAIT).until(() -> rawEvents.stream().anyMatch(e -> e.type() == CmEventType.ADDR_CHANGE));
            // a hint: the connection carries on
            var reply = client.receive().map(Message::asString).next().toFuture();
            client.send(Mono.just("still here".getBytes())).block(WAIT);
            assertThat(reply.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("still here");
            assertThat(seen).doesNotContain(ConnectionEvent.Type.ERROR, ConnectionEvent.Type.CLOSED);
            ch.close();
            client.disconnect().block(WAIT);
            server.disposeNow(WAIT);
            hosts.awaitQuiet();
        }
    }
}
