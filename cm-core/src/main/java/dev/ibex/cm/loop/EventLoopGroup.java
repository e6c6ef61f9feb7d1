package dev.ibex.cm.loop;

import dev.ibex.cm.buffer.BufferLeak;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * N {@link EventLoop}s over one opened {@link Fabric}. Endpoints are spread over the loops with {@link #next()}
 * (round-robin). Each device's async events are read by exactly one loop and routed to the loop owning the
 * affected endpoint (QP/CQ/SRQ events) or to every loop (port and device events).
 *
 * <p>Ownership: a group made by {@link #open} opened the fabric and closes it last; a group made by {@link #of}
 * leaves the fabric to the caller (close the group first).
 *
 * <p>{@link #close()} closes every endpoint (connections disconnect and drain their flushed completions, bounded by
 * {@link LoopOptions#closeTimeout()}), then each loop's resources in verbs order, then joins the threads.
 */
public final class EventLoopGroup implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoopGroup.class);

    private final Fabric fabric;
    private final boolean ownsFabric;
    private final LoopOptions options;
    private final EventLoop[] loops;
    private final AtomicInteger next = new AtomicInteger();
    private final Map<DeviceContext, EventLoop> asyncReaders = new ConcurrentHashMap<>();
    /** Devices reported removed: their async events are no longer read (the provider may let their fd go). */
    private final Set<DeviceContext> removedDevices = ConcurrentHashMap.newKeySet();
    private final Map<DeviceContext, List<Consumer<AsyncEvent>>> asyncWatchers = new ConcurrentHashMap<>();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CompletableFuture<Void> terminated;

    private EventLoopGroup(Fabric fabric, boolean ownsFabric, LoopOptions options) {
        this.fabric = fabric;
        this.ownsFabric = ownsFabric;
        this.options = options;
        this.loops = new EventLoop[options.loops()];
        try {
            for (int i = 0; i < loops.length; i++) {
                loops[i] = new EventLoop(this, i, options);
            }
        } catch (RuntimeException e) {
            for (EventLoop l : loops) {
                if (l != null) {
                    l.start();
                    l.shutdown();
                }
            }
            throw e;
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[loops.length];
        for (int i = 0; i < loops.length; i++) {
            all[i] = loops[i].terminationFuture();
        }
        // the fabric closes off the loop threads: closing a provider may join its own threads
        this.terminated = CompletableFuture.allOf(all).thenRunAsync(this::closeFabric,
                r -> Thread.ofPlatform().daemon().name("ibex-group-close").start(r));
        for (EventLoop l : loops) {
            l.start();
        }
    }

    /**
     * Opens a provider ({@link Providers#select} with {@code provider}, which may be {@code null} for the default
     * rule) and runs the loops over it; the group closes the fabric. Any thread.
     *
     * @param provider the provider's name, or {@code null} for the default rule ({@code -Dibex.provider}, a provider
     *     that sees devices, then soft-roce)
     * @param config the provider's configuration
     * @param options how many loops and how they are sized
     * @return a running group
     * @throws IllegalArgumentException when the named provider is not on the class path
     * @throws IllegalStateException when no provider is on the class path
     * @throws dev.ibex.cm.RdmaException when the provider cannot open its fabric
     */
    public static EventLoopGroup open(String provider, ProviderConfig config, LoopOptions options) {
        Fabric f = Providers.select(provider).open(config);
        try {
            return new EventLoopGroup(f, true, options);
        } catch (RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /**
     * {@link #open(String, ProviderConfig, LoopOptions)} with default configuration and options.
     *
     * @param provider the provider's name, or {@code null} for the default rule
     * @return a running group
     * @throws IllegalArgumentException when the named provider is not on the class path
     * @throws IllegalStateException when no provider is on the class path
     * @throws dev.ibex.cm.RdmaException when the provider cannot open its fabric
     */
    public static EventLoopGroup open(String provider) {
        return open(provider, ProviderConfig.DEFAULT, LoopOptions.DEFAULT);
    }

    /**
     * Loops over a fabric the caller opened and will close (after closing the group).
     *
     * @param fabric an open fabric
     * @param options how many loops and how they are sized
     * @return a running group that leaves the fabric open when it closes
     */
    public static EventLoopGroup of(Fabric fabric, LoopOptions options) {
        return new EventLoopGroup(fabric, false, options);
    }

    /** {@return the fabric the loops run over} */
    public Fabric fabric() {
        return fabric;
    }

    /** {@return the options the group was made with} */
    public LoopOptions options() {
        return options;
    }

    /** {@return the next loop, round-robin} */
    public EventLoop next() {
        return loops[Math.floorMod(next.getAndIncrement(), loops.length)];
    }

    /** {@return every loop of the group, by index} */
    public List<EventLoop> loops() {
        return List.of(loops);
    }

    /**
     * Every counter of this group, for a metrics system: the fabric's ({@link Fabric#counters()}) and each loop's
     * {@code credit.stalls} (tag {@code loop}), all tagged with {@code provider}. Read lazily; see
     * {@link dev.ibex.cm.spi.RdmaCounter}.
     *
     * @return a new list of live counters; any thread
     */
    public List<dev.ibex.cm.spi.RdmaCounter> counters() {
        List<dev.ibex.cm.spi.RdmaCounter> all = new ArrayList<>();
        String provider = fabric.providerName();
        for (dev.ibex.cm.spi.RdmaCounter c : fabric.counters()) {
            all.add(c.withTag("provider", provider));
        }
        for (EventLoop l : loops) {
            all.add(new dev.ibex.cm.spi.RdmaCounter("credit.stalls", "times a connection spent its last send credit "
                    + "and waited for its peer to return some", Map.of("provider", provider, "loop", l.toString()),
                    l::creditStalls));
        }
        return all;
    }

    /** {@return whether the calling thread is one of this group's loops} */
    public boolean inEventLoop() {
        for (EventLoop l : loops) {
            if (l.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /** {@return whether {@link #shutdownGracefully()} or {@link #close()} was called} */
    public boolean isShuttingDown() {
        return closing.get();
    }

    /**
     * Starts closing; returns at once. Idempotent, any thread.
     *
     * @return the {@link #terminationFuture()}
     */
    public CompletableFuture<Void> shutdownGracefully() {
        if (closing.compareAndSet(false, true)) {
            for (EventLoop l : loops) {
                l.shutdown();
            }
        }
        return terminated;
    }

    /** {@return a future that completes when every loop has stopped and, if owned, the fabric is closed} */
    public CompletableFuture<Void> terminationFuture() {
        return terminated;
    }

    /**
     * Closes every endpoint and resource and joins the threads, waiting at most the close timeout plus a second.
     * Called on a loop thread it only starts the shutdown (a loop cannot wait for itself).
     */
    @Override
    public void close() {
        shutdownGracefully();
        if (inEventLoop()) {
            return;
        }
        long waitMs = options.closeTimeout().toMillis() + 1000;
        try {
            terminated.get(waitMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("event loops did not terminate within {} ms", waitMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warn("closing the fabric failed", e.getCause());
        }
        for (EventLoop l : loops) {
            try {
                l.thread().join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Every buffer the application holds and has not released, across all loops (a test helper; blocks the caller
     * up to 5 s per loop, so never call it on a loop).
     *
     * @return one entry per held buffer; empty when none is
     * @throws IllegalStateException when a loop does not answer within 5 s
     */
    public List<BufferLeak> bufferLeaks() {
        List<BufferLeak> out = new ArrayList<>();
        for (EventLoop l : loops) {
            try {
                out.addAll(l.submit(() -> {
                    List<BufferLeak> leaks = new ArrayList<>();
                    for (LoopDevice d : l.devices()) {
                        d.pool().drainReturns();
                        leaks.addAll(d.pool().leaks());
                    }
                    return leaks;
                }).get(5, TimeUnit.SECONDS));
            } catch (Exception e) {
                throw new IllegalStateException("cannot inspect the buffers of " + l, e);
            }
        }
        return out;
    }

    /**
     * What the loops hold on their devices now ({@link Footprint}: pool slabs and bytes, buffers, CQs). Blocks the
     * caller up to 5 s per loop, so never call it on a loop.
     *
     * @return the sum over all loops and devices
     * @throws IllegalStateException when a loop does not answer within 5 s
     */
    public Footprint footprint() {
        Footprint sum = new Footprint(0, 0, 0, 0, 0);
        for (EventLoop l : loops) {
            try {
                sum = sum.plus(l.submit(() -> {
                    Footprint f = new Footprint(0, 0, 0, 0, 0);
                    for (LoopDevice d : l.devices()) {
                        var p = d.pool();
                        p.drainReturns();
                        f = f.plus(new Footprint(p.slabs(), p.registeredBytes(), p.allocated(), p.inUse(),
                                d.cqCount()));
                    }
                    return f;
                }).get(5, TimeUnit.SECONDS));
            } catch (Exception e) {
                throw new IllegalStateException("cannot inspect the resources of " + l, e);
            }
        }
        return sum;
    }

    void ensureAsyncReader(DeviceContext context) {
        if (removedDevices.contains(context)) {
            return;
        }
        asyncReaders.computeIfAbsent(context, c -> {
            int i = Math.max(0, fabric.devices().indexOf(c));
            EventLoop reader = loops[i % loops.length];
            reader.run(() -> reader.registerAsync(c.asyncEvents()));
            return reader;
        });
    }

    /**
     * A device went away (the CM's DEVICE_REMOVAL or DEVICE_FATAL): its reader stops reading its async events, later
     * on its own loop (never inside the read), so that the provider can close the device once the loops have let go
     * of their resources on it. Idempotent; any thread.
     */
    void stopAsyncReader(DeviceContext device) {
        removedDevices.add(device);
        EventLoop reader = asyncReaders.remove(device);
        if (reader != null) {
            try {
                reader.execute(() -> reader.deregisterAsync(device.asyncEvents()));
            } catch (java.util.concurrent.RejectedExecutionException terminated) {
                // the loop deregistered everything when it ended
            }
        }
    }

    /**
     * Hands every async event of {@code device} to {@code watcher} as well, on the loop that reads the device's events
     * (started if none did yet), before the event is routed to the endpoints. The watcher must not block. Any thread.
     *
     * @param device a device of the group's fabric
     * @param watcher told of each event, on the reading loop
     * @return stops watching (idempotent, any thread)
     */
    public Runnable watchAsyncEvents(DeviceContext device, Consumer<AsyncEvent> watcher) {
        asyncWatchers.computeIfAbsent(device, d -> new CopyOnWriteArrayList<>()).add(watcher);
        ensureAsyncReader(device);
        return () -> {
            List<Consumer<AsyncEvent>> l = asyncWatchers.get(device);
            if (l != null) {
                l.remove(watcher);
            }
        };
    }

    /** Sends an async event to its watchers and to the loop(s) it concerns. */
    void route(AsyncEvent e) {
        List<Consumer<AsyncEvent>> watchers = e.device() == null ? null : asyncWatchers.get(e.device());
        if (watchers != null) {
            for (Consumer<AsyncEvent> w : watchers) {
                try {
                    w.accept(e);
                } catch (Throwable t) {
                    reportUncaught("async event watcher", t);
                }
            }
        }
        switch (e.type().element()) {
            case QP -> {
                if (e.qp() != null && e.qp().context() instanceof LoopEndpoint ep) {
                    ep.loop().run(() -> ep.onAsyncEvent(e));
                }
            }
            case CQ -> {
                if (e.cq() != null && e.cq().context() instanceof WatchedCq w) {
                    w.device.loop().run(() -> w.device.loop().broadcast(e));
                }
            }
            case SRQ -> {
                if (e.srq() != null && e.srq().context() instanceof LoopDevice d) {
                    d.loop().run(() -> d.onSrqEvent(e));
                }
            }
            case PORT, DEVICE -> {
                for (EventLoop l : loops) {
                    l.run(() -> l.broadcast(e));
                }
            }
        }
    }

    void reportUncaught(String where, Throwable t) {
        LOG.warn("a task or callback on {} threw", where, t);
        if (options.uncaughtHandler() != null) {
            try {
                options.uncaughtHandler().accept(t);
            } catch (Throwable ignored) {
                // the handler must not take the loop down
            }
        }
    }

    private void closeFabric() {
        if (ownsFabric) {
            fabric.close();
        }
    }
}
