package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.softroce.transport.SoftDevice;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

/** {@link RdmaDeviceEvents} on soft-roce: port events on link down/up, and DEVICE_FATAL ending the stream. */
@Timeout(60)
class DeviceEventsTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void portEventsArriveAndDeviceFatalEndsTheStream() {
        try (SoftHosts hosts = new SoftHosts("cli=" + SoftHosts.CLIENT_IP + ",spare=127.0.0.13")) {
            DeviceContext spare = hosts.clientFabric.devices().get(1);
            List<AsyncEvent> got = new CopyOnWriteArrayList<>();
            AtomicReference<Boolean> completed = new AtomicReference<>(false);
            RdmaDeviceEvents.of(hosts.client, spare).subscribe(got::add, e -> { },
                    () -> completed.set(true));
            List<AsyncEvent> other = new CopyOnWriteArrayList<>();
            Disposable od = RdmaDeviceEvents.of(hosts.client, hosts.clientFabric.devices().get(0))
                    .subscribe(other::add);
            LoopCall.call(hosts.client.loops().get(0), () -> true); // both subscriptions are watching
            LoopCall.call(hosts.client.loops().get(hosts.client.loops().size() - 1), () -> true);

            SoftDevice soft = (SoftDevice) spare;
            soft.setPortActive(1, false);
            await().atMost(WAIT).until(() -> got.size() == 1);
            soft.setPortActive(1, true);
            await().atMost(WAIT).until(() -> got.size() == 2);
            assertThat(got).extracting(AsyncEvent::type).containsExactly(AsyncEventType.PORT_ERR,
                    AsyncEventType.PORT_ACTIVE);
            assertThat(got.get(0).port()).isEqualTo(1);
            assertThat(got.get(0).device()).isSameAs(spare);

            soft.close(); // the soft device goes away: DEVICE_FATAL, and nothing after it
            await().atMost(WAIT).until(completed::get);
            assertThat(got).extracting(AsyncEvent::type).containsExactly(AsyncEventType.PORT_ERR,
                    AsyncEventType.PORT_ACTIVE, AsyncEventType.DEVICE_FATAL);
            assertThat(other).as("another device's stream").isEmpty();
            od.dispose();
        }
    }
}
