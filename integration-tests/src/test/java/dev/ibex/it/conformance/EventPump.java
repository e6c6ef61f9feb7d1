package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.fail;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventSource;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.EventSource;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Poller;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The suite's tiny single-threaded event loop: one {@link Poller} over the test's CM channels, device async-event
 * sources and completion channels. Waiting for something pumps every source into per-source queues, so an event
 * for another channel is never lost while a test waits on one. Every wait is bounded by the fixture's timeout.
 * The new id of each CONNECT_REQUEST is added to the test's {@link Scope}, so tests cannot leak it.
 */
public final class EventPump implements AutoCloseable {
    private static final long SLICE = TimeUnit.MILLISECONDS.toNanos(20);

    private final Fabric fabric;
    private final Poller poller;
    private final Scope scope;
    private final Duration timeout;
    private final Map<EventSource, Deque<Object>> queues = new IdentityHashMap<>();
    private final List<Object> ready = new ArrayList<>();
    private final CompletionBatch batch;

    EventPump(Fabric fabric, Scope scope, Duration timeout) {
        this(fabric, scope, timeout, false);
    }

    /**
     * @param loopPoller poll through {@link Fabric#createLoopPoller()} (the provider may do the device's work inline
     *     on the pump's thread, which then must poll whenever a test waits — it always does)
     */
    EventPump(Fabric fabric, Scope scope, Duration timeout, boolean loopPoller) {
        this.fabric = fabric;
        this.scope = scope;
        this.timeout = timeout;
        this.poller = loopPoller ? fabric.createLoopPoller() : fabric.createPoller();
        this.batch = CompletionBatch.allocate(scope.arena(), 32);
    }

    public Duration timeout() {
        return timeout;
    }

    /** A new CM event channel, watched by this pump and closed with the scope. */
    public EventChannel channel() {
        EventChannel ch = fabric.createEventChannel();
        watch(ch);
        scope.add(() -> {
            forget(ch);
            ch.close();
        });
        return ch;
    }

    /** Watches a source (a device's async events, a completion channel, a channel created elsewhere). */
    public void watch(EventSource source) {
        if (!queues.containsKey(source)) {
            queues.put(source, new ArrayDeque<>());
            poller.register(source, source);
        }
    }

    /** Stops watching {@code source} (before it is closed). */
    public void forget(EventSource source) {
        if (queues.remove(source) != null) {
            poller.deregister(source);
        }
    }

    /** What arrived from {@code source} that no test took yet (a copy; empty when it is not watched). */
    public List<Object> queued(EventSource source) {
        Deque<Object> q = queues.get(source);
        return q == null ? List.of() : List.copyOf(q);
    }

    /** Waits up to {@code nanos} and moves everything that became readable into the queues. */
    public void pump(long nanos) {
        ready.clear();
        poller.poll(nanos, ready::add);
        for (Object source : ready) {
            Deque<Object> q = queues.get(source);
            if (q == null) {
                continue;
            }
            switch (source) {
                case EventChannel ch -> {
                    for (CmEvent e; (e = ch.poll()) != null; ) {
                        if (e.type() == CmEventType.CONNECT_REQUEST) {
                            scope.add(e.id());
                        }
                        q.add(e);
                    }
                }
                case AsyncEventSource a -> {
                    for (AsyncEvent e; (e = a.poll()) != null; ) {
                        q.add(e);
                    }
                }
                case CompletionChannel cc -> {
                    for (CompletionQueue cq; (cq = cc.poll()) != null; ) {
                        q.add(cq);
                    }
                }
                default -> throw new IllegalStateException("unexpected source " + source);
            }
        }
    }

    private Object next(EventSource source, String what) {
        Deque<Object> q = queues.get(source);
        if (q == null) {
            throw new IllegalStateException(source + " is not watched");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (q.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("no " + what + " within " + timeout + " on " + source + "; elsewhere: " + pending());
            }
            pump(Math.min(left, SLICE));
        }
        return q.poll();
    }

    private String pending() {
        StringBuilder sb = new StringBuilder();
        queues.forEach((s, q) -> {
            if (!q.isEmpty()) {
                sb.append(s).append('=').append(q).append(' ');
            }
        });
        return sb.isEmpty() ? "nothing" : sb.toString();
    }

    /** The next CM event on {@code ch}. */
    public CmEvent next(EventChannel ch) {
        return (CmEvent) next(ch, "CM event");
    }

    /** The next CM event on {@code ch}, which must be of {@code type}. */
    public CmEvent expect(EventChannel ch, CmEventType type) {
        CmEvent e = next(ch);
        if (e.type() != type) {
            fail("expected " + type + " but got " + e + " (status " + e.status() + ")");
        }
        return e;
    }

    /** The next CM event on {@code ch} if one arrives within {@code within}. */
    public Optional<CmEvent> maybe(EventChannel ch, Duration within) {
        Deque<Object> q = queues.get(ch);
        long deadline = System.nanoTime() + within.toNanos();
        while (q.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            pump(Math.min(left, SLICE));
        }
        return Optional.of((CmEvent) q.poll());
    }

    /** The next async event of {@code type} from {@code device}; other async events are skipped. */
    public AsyncEvent expectAsync(DeviceContext device, AsyncEventType type) {
        return expectAsync(device, e -> e.type() == type, type.toString());
    }

    public AsyncEvent expectAsync(DeviceContext device, Predicate<AsyncEvent> match, String what) {
        AsyncEventSource src = device.asyncEvents();
        watch(src);
        long deadline = System.nanoTime() + timeout.toNanos();
        Deque<Object> q = queues.get(src);
        while (true) {
            for (Iterator<Object> it = q.iterator(); it.hasNext(); ) {
                AsyncEvent e = (AsyncEvent) it.next();
                if (match.test(e)) {
                    it.remove();
                    return e;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("no async event " + what + " within " + timeout + "; got " + q + "; live threads (another "
                        + "fabric's loop reads the same device): " + liveThreads());
            }
            pump(Math.min(left, SLICE));
        }
    }

    private static List<String> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).sorted().toList();
    }

    /** The next CQ notification on a completion channel. */
    public CompletionQueue nextNotification(CompletionChannel channel) {
        return (CompletionQueue) next(channel, "completion notification");
    }

    /** Polls {@code cq} until at least {@code count} completions arrived (fails after the timeout). */
    public List<Completion> completions(CompletionQueue cq, int count) {
        List<Completion> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.size() < count) {
            int n = cq.poll(batch);
            for (int i = 0; i < n; i++) {
                out.add(Completion.of(batch, i));
            }
            if (n == 0) {
                if (System.nanoTime() - deadline > 0) {
                    fail("only " + out.size() + " of " + count + " completions within " + timeout + ": " + out);
                }
                pump(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        return out;
    }

    /** Whatever completions {@code cq} yields within {@code within} (for "nothing more arrives" checks). */
    public List<Completion> drain(CompletionQueue cq, Duration within) {
        List<Completion> out = new ArrayList<>();
        long deadline = System.nanoTime() + within.toNanos();
        do {
            int n = cq.poll(batch);
            for (int i = 0; i < n; i++) {
                out.add(Completion.of(batch, i));
            }
            if (n == 0) {
                pump(TimeUnit.MILLISECONDS.toNanos(2));
            }
        } while (System.nanoTime() - deadline < 0);
        return out;
    }

    @Override
    public void close() {
        poller.close();
    }
}
