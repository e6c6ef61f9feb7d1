package dev.ibex.it.conformance;

import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What one test opened, closed in reverse order at the end of the test (so children go before parents, as the
 * verbs require), plus a shared arena for registered memory that closes last.
 */
public final class Scope implements AutoCloseable {
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();

    /** Registers {@code resource} for closing; returns it. */
    public <T extends AutoCloseable> T add(T resource) {
        opened.push(resource);
        return resource;
    }

    /** Memory for buffers and work-request batches; alive until the scope closes. */
    public Arena arena() {
        return arena;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing a resource failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (failure != null) {
            throw failure;
        }
    }
}
