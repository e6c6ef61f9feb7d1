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
import org.junit.jupiter.api.Test;

/**
 * What the event loop, the send queue and the buffer pool call on a connection is not its public API (issue 17):
 * those callbacks live on the package-private {@link ConnectionEvents} and {@link ReceivePath}.
 */
class ConnectionSurfaceTest {

    /** The callers' interfaces' methods a user must not see on {@link Connection}, but for the ones that are API. */
    private static final Set<String> API = Set.of("loop", "device", "close");

    @Test
    void connectionImplementsNoCallbackInterface() {
        assertThat(Connection.class.getInterfaces()).isEmpty();
        assertThat(LoopEndpoint.class.isAssignableFrom(ConnectionEvents.class)).isTrue();
        assertThat(SendQueue.Owner.class.isAssignableFrom(ConnectionEvents.class)).isTrue();
        assertThat(BufferOwner.class.isAssignableFrom(ReceivePath.class)).isTrue();
    }

    @Test
    void noLoopOrSendQueueCallbackIsPublicOnConnection() {
        Set<String> callbacks = Stream.of(LoopEndpoint.class, SendQueue.Owner.class, BufferOwner.class)
                .flatMap(i -> Arrays.stream(i.getDeclaredMethods())).map(Method::getName)
                .filter(n -> !API.contains(n)).collect(Collectors.toSet());
        Set<String> exposed = Arrays.stream(Connection.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers())).map(Method::getName)
                .filter(callbacks::contains).collect(Collectors.toSet());
        assertThat(callbacks).contains("onCmEvent", "onCompletion", "onAsyncEvent", "abort", "released", "completed",
                "failed", "probeDone", "postFailed");
        assertThat(exposed).isEmpty();
    }
}
