package dev.ibex.cm.loop;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.DeviceContext;
import java.util.List;
import java.util.ArrayList;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicInteger;

/** A loop endpoint that records what the loop dispatched to it, and on which thread. */
final class RecordingEndpoint implements LoopEndpoint {
    record Seen(String what, long value, Thread thread) {}

    static final AtomicInteger ORDER = new AtomicInteger();

    final EventLoop loop;
    final DeviceContext device;
    final List<Seen> seen = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> completionOrder = Collections.synchronizedList(new ArrayList<>());
    int handle;
    boolean closed;

    RecordingEndpoint(EventLoop loop, DeviceContext device) {
        this.loop = loop;
        this.device = device;
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public void onCmEvent(CmEvent event) {
        seen.add(new Seen("cm " + event.type(), 0, Thread.currentThread()));
    }

    @Override
    public void onCompletion(CompletionBatch wc, int i, int kind, int slot) {
        completionOrder.add(ORDER.incrementAndGet());
        seen.add(new Seen("wc " + wc.status(i), slot, Thread.currentThread()));
    }

    @Override
    public void onAsyncEvent(AsyncEvent event) {
        seen.add(new Seen("async " + event.type(), 0, Thread.currentThread()));
    }

    @Override
    public DeviceContext device() {
        return device;
    }

    @Override
    public void close() {
        closed = true;
        loop.unregister(handle, this);
    }

    @Override
    public void abort() {
        close();
    }

    List<Seen> seen() {
        return new ArrayList<>(seen);
    }

    long count(String prefix) {
        return seen().stream().filter(s -> s.what().startsWith(prefix)).count();
    }
}
