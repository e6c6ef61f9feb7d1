package dev.ibex.rsocket;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * BlockHound allowances for Netty's own buffer allocator, which RSocket's frames come from on the event loops (as
 * they would on a Netty event loop): Netty 4.2's {@code AdaptivePoolingAllocator} takes a short internal lock when a
 * magazine is freed or the magazines grow — a bounded wait like the pool-arena locks Netty's own integration
 * allows, missing from it in 4.2.17. Also Reactor's scheduler cache, whose race loser disposes its copy under a
 * lock (the RSocket TCK's interceptor creates {@code boundedElastic} from the loops), and the removal of a cancelled
 * periodic task from a scheduler's queue (RSocket's keepalive, cancelled on a loop). Loaded by BlockHound's
 * {@code ServiceLoader} when cm-reactive's
 * {@code ReactiveBlockHound} installs it.
 *
 * <p><b>Threading.</b> Stateless.
 */
public final class NettyAllocatorBlockHound implements BlockHoundIntegration {
    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free")
                .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup",
                        "tryExpandMagazines")
                // Reactor's scheduler cache: the loser of a race to create a cached scheduler disposes its copy
                .allowBlockingCallsInside("reactor.core.scheduler.Schedulers", "cache")
                // cancelling a periodic task (RSocket's keepalive interval, when a connection closes on a loop) removes
                // it from its ScheduledThreadPoolExecutor's queue under the queue's lock: the bounded wait Reactor's
                // own integration allows for that queue's offer and take (SchedulerCancelBlockHoundTest)
                .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue",
                        "remove");
    }
}
