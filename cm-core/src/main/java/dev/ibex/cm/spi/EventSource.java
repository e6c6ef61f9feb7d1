package dev.ibex.cm.spi;

/**
 * Something a {@link Poller} can wait on: a CM {@link EventChannel}, a {@link CompletionChannel} or a device's
 * {@link AsyncEventSource}. Readiness is level-triggered: a source is reported as ready while it has something
 * to read, and its reader drains it (reads until it returns {@code null}) before polling again.
 */
public interface EventSource {}
