package dev.ibex.cm.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.LoopBlockHound;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** A scripted fabric with an event loop group, for walking state tables. */
final class ScriptedGroup implements AutoCloseable {
    final FakeFabric fabric = FakeFabric.scripted();
    final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    final EventLoopGroup group;

    ScriptedGroup(int loops) {
        LoopBlockHound.install();
        group = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(loops).withCloseTimeout(Duration.ofSeconds(1))
                .withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(256).withSlabs(64, 4096))
                .withUncaughtHandler(uncaught::add));
    }

    EventLoop loop(int i) {
        return group.loops().get(i);
    }

    <T> T on(EventLoop loop, Callable<T> c) {
        try {
            return loop.submit(c).get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Closes the group and checks that everything the fake counts was released. */
    @Override
    public void close() {
        group.close();
        assertThat(fabric.resources().total()).as(fabric.resources().toString()).isZero();
        assertThat(fabric.violations()).isEmpty();
        assertThat(uncaught).isEmpty();
        fabric.close();
    }
}
