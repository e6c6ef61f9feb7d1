package dev.ibex.cm.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.buffer.BufferOwner;
import dev.ibex.cm.loop.LoopEndpoint;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * What the event loop, the send queue and the buffer pool call on an endpoint is not its public API (issue 17): those
 * callbacks live on package-private classes ({@link ConnectionEvents}, {@link ReceivePath}, {@link DatagramEvents},
 * {@link ListenerEvents}).
 */
class EndpointSurfaceTest {

    /** Methods of the callers' interfaces that are API on the endpoints too. */
    private static final Set<String> API = Set.of("loop", "device", "close");

    @ParameterizedTest(name = "{0}")
    @ValueSource(classes = {Connection.class, Datagram.class, Listener.class})
    void anEndpointImplementsNoCallbackInterfaceAndExposesNoCallback(Class<?> endpoint) {
        // an endpoint may implement its API's contracts (Connection: RdmaOperations, PathMigration), none of the callers'
        assertThat(endpoint.getInterfaces()).doesNotContain(LoopEndpoint.class, SendQueue.Owner.class, BufferOwner.class)
                .allSatisfy(i -> assertThat(Modifier.isPublic(i.getModifiers())).as(i.getSimpleName()).isTrue());
        Set<String> callbacks = Stream.of(LoopEndpoint.class, SendQueue.Owner.class, BufferOwner.class)
                .flatMap(i -> Arrays.stream(i.getDeclaredMethods())).map(Method::getName)
                .filter(n -> !API.contains(n)).collect(Collectors.toSet());
        assertThat(callbacks).contains("onCmEvent", "onCompletion", "onAsyncEvent", "abort", "released", "completed",
                "failed", "probeDone", "postFailed");
        Set<String> exposed = Arrays.stream(endpoint.getMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers())).map(Method::getName)
                .filter(callbacks::contains).collect(Collectors.toSet());
        assertThat(exposed).isEmpty();
    }

    @Test
    void theCallbacksLiveOnPackagePrivateClasses() {
        assertThat(LoopEndpoint.class).isAssignableFrom(ConnectionEvents.class);
        assertThat(SendQueue.Owner.class).isAssignableFrom(ConnectionEvents.class);
        assertThat(BufferOwner.class).isAssignableFrom(ReceivePath.class);
        assertThat(LoopEndpoint.class).isAssignableFrom(DatagramEvents.class);
        assertThat(BufferOwner.class).isAssignableFrom(DatagramEvents.class);
        assertThat(LoopEndpoint.class).isAssignableFrom(ListenerEvents.class);
        for (Class<?> c : new Class<?>[] {ConnectionEvents.class, ReceivePath.class, DatagramEvents.class,
                ListenerEvents.class}) {
            assertThat(Modifier.isPublic(c.getModifiers())).as(c.getSimpleName()).isFalse();
        }
    }
}
