package dev.ibex.cm.spi;

/** A device's async events ({@code ibv_get_async_event} on a non-blocking fd, acked by the provider). */
public interface AsyncEventSource extends EventSource {
    /** The next event, or {@code null} when none is pending. Never blocks. */
    AsyncEvent poll();
}
