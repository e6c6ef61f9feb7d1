package dev.ibex.cm.loop;

import java.util.concurrent.TimeUnit;

/**
 * The loop timer that gives back what load left behind on one {@link LoopDevice}: an SRQ no QP uses any more
 * ({@link LoopSrq#trim}), shared CQs without QPs ({@link LoopDevice#trimCqs}) and idle buffer pool slabs
 * ({@code BufferPool.trim}). It ticks a quarter of the shorter idle time apart (10 ms to 1 s) only while something
 * could go — the pool holds more than its minimum, a second shared CQ exists or the SRQ has no QP — so a loop at
 * rest has no periodic wake-up; the pool's growth, a new shared CQ and the SRQ's last QP going start it again. Never
 * on the data path. Loop-confined.
 */
final class IdleReclaim {
    private static final long MIN_PERIOD = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_PERIOD = TimeUnit.SECONDS.toNanos(1);

    private final LoopDevice device;
    private final long periodNanos;
    private ScheduledTask timer;

    IdleReclaim(LoopDevice device, long poolIdleNanos, long cqIdleNanos) {
        this.device = device;
        this.periodNanos = Math.clamp(Math.min(poolIdleNanos, cqIdleNanos) / 4, MIN_PERIOD, MAX_PERIOD);
    }

    /** Something may become idle: tick until it is gone (idempotent). */
    void start() {
        if (timer == null && !device.isClosed()) {
            timer = device.loop().schedule(this::tick, periodNanos, TimeUnit.NANOSECONDS);
        }
    }

    void stop() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void tick() {
        timer = null;
        if (device.isClosed()) {
            return;
        }
        long now = System.nanoTime();
        device.loopSrq().trim(now); // before the pool: its buffers come back first
        device.trimCqs(now);
        device.pool().trim(now);
        if (device.pool().trimmable() || device.extraSharedCqs() > 0 || device.loopSrq().unused()) {
            start();
        }
    }

    /** Nanoseconds between ticks. */
    long periodNanos() {
        return periodNanos;
    }
}
