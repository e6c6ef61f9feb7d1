package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Exposure;
import java.util.Set;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The {@link RdmaExposure} over a cm-core {@link Exposure}: dispose revokes, the connection's
 * {@code onExposureEnded} completes {@link #onDispose()}. Any thread; the sink is completed on the loop.
 */
final class ReactiveExposure implements RdmaExposure {
    private final Exposure exposure;
    private final RemoteBuffer remote;
    private final Sinks.Empty<Void> ended = Sinks.empty();
    private volatile boolean disposed;

    ReactiveExposure(Exposure exposure) {
        this.exposure = exposure;
        this.remote = exposure.remote();
    }

    @Override
    public RemoteBuffer remote() {
        return remote;
    }

    @Override
    public Buffer buffer() {
        return exposure.buffer();
    }

    @Override
    public int offset() {
        return exposure.offset();
    }

    @Override
    public int length() {
        return exposure.length();
    }

    @Override
    public Set<RemoteAccess> rights() {
        return exposure.rights();
    }

    @Override
    public boolean isBoundToConnection() {
        return exposure.isBoundToConnection();
    }

    @Override
    public Exposure.End end() {
        return exposure.end();
    }

    @Override
    public Mono<Void> onDispose() {
        return ended.asMono();
    }

    @Override
    public Exposure exposure() {
        return exposure;
    }

    @Override
    public void dispose() {
        if (!disposed) {
            disposed = true;
            exposure.revoke();
        }
    }

    @Override
    public boolean isDisposed() {
        return disposed || exposure.state() == Exposure.State.ENDED;
    }

    /** The exposure ended (loop thread). */
    void ended() {
        disposed = true;
        ended.tryEmitEmpty();
    }

    @Override
    public String toString() {
        return "RdmaExposure[" + exposure + "]";
    }
}
