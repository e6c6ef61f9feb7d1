package dev.ibex.cm.reactive;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** A metrics recorder and observer that remembers what it was told. */
final class RecordingMetrics implements RdmaMetricsRecorder, ConnectionObserver {
    final List<String> connects = new CopyOnWriteArrayList<>();
    final List<String> decisions = new CopyOnWriteArrayList<>();
    final List<ConnectionEvent.Type> events = new CopyOnWriteArrayList<>();
    final List<String> eventThreads = new CopyOnWriteArrayList<>();
    final AtomicLong bytesReceived = new AtomicLong();
    final AtomicLong bytesSent = new AtomicLong();
    final AtomicLong errors = new AtomicLong();

    @Override
    public void recordConnectTime(InetSocketAddress remote, Duration time, String status) {
        connects.add(status);
    }

    @Override
    public void recordAcceptDecision(InetSocketAddress remote, Duration decisionTime, String status) {
        decisions.add(status);
    }

    @Override
    public void recordDataReceived(InetSocketAddress remote, long bytes) {
        bytesReceived.addAndGet(bytes);
    }

    @Override
    public void recordDataSent(InetSocketAddress remote, long bytes) {
        bytesSent.addAndGet(bytes);
    }

    @Override
    public void incrementErrorsCount(InetSocketAddress remote) {
        errors.incrementAndGet();
    }

    @Override
    public void onEvent(RdmaConnection connection, ConnectionEvent event) {
        events.add(event.type());
        eventThreads.add(Thread.currentThread().getName());
    }
}
