package dev.ibex.cm.spi;

/** A device's async events ({@code ibv_get_async_event} on a non-blocking fd, acked by the provider). */
public interface AsyncEventSource extends EventSource {
    /** {@return the next event, or {@code null} when none is pending; never blocks} */
    AsyncEvent poll();
}
