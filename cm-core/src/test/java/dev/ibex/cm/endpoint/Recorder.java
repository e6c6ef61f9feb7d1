package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.spi.AsyncEvent;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A connection handler that records every callback (with its thread) for assertions. */
class Recorder implements ConnectionHandler {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final List<String> messages = Collections.synchronizedList(new ArrayList<>());
    final List<byte[]> raw = Collections.synchronizedList(new ArrayList<>());
    final List<Buffer> held = Collections.synchronizedList(new ArrayList<>());
    /** Each message's immediate data, or null when it had none (messages of one or several buffers). */
    final List<Integer> imms = Collections.synchronizedList(new ArrayList<>());
    /** Messages of several buffers, as bytes (they are released at once). */
    final List<byte[]> lists = Collections.synchronizedList(new ArrayList<>());
    final List<Long> completed = Collections.synchronizedList(new ArrayList<>());
    final List<RdmaException> failures = Collections.synchronizedList(new ArrayList<>());
    final List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
    final List<PathEvent> paths = Collections.synchronizedList(new ArrayList<>());
    final CompletableFuture<Connection> established = new CompletableFuture<>();
    final CompletableFuture<Throwable> error = new CompletableFuture<>();
    final CompletableFuture<Connection> closed = new CompletableFuture<>();
    volatile boolean hold;

    private void seen(String e) {
        events.add(e);
        threads.add(Thread.currentThread());
    }

    List<String> events() {
        return new ArrayList<>(events);
    }

    /** Stops holding messages and releases (on the calling thread) those held, which re-posts their receives. */
    void releaseHeld() {
        List<Buffer> h = List.copyOf(held);
        held.clear();
        hold = false;
        h.forEach(Buffer::release);
    }

    @Override
    public void onEstablished(Connection c) {
        seen("established");
        established.complete(c);
    }

    @Override
    public void onMessage(Connection c, Buffer m) {
        seen("message");
        imms.add(m.hasImmData() ? m.immData() : null);
        messages.add(text(m));
        raw.add(m.segment().asSlice(m.offset(), m.length()).toArray(ValueLayout.JAVA_BYTE));
        if (hold) {
            held.add(m);
        } else {
            m.release();
        }
    }

    @Override
    public void onMessage(Connection c, dev.ibex.cm.buffer.BufferList m) {
        seen("message list");
        imms.add(m.hasImmData() ? m.immData() : null);
        lists.add(m.toByteArray());
        m.release();
    }

    @Override
    public void onRemoteWrite(Connection c, int imm, int length) {
        seen("remoteWrite " + imm + " " + length);
    }

    @Override
    public void onComplete(Connection c, Operation op, long attachment) {
        seen("complete " + op);
        completed.add(attachment);
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
        seen("failed " + op);
        failures.add(error);
    }

    @Override
    public void onExposureEnded(Connection c, Exposure e) {
        seen("exposureEnded " + e.end());
    }

    @Override
    public void onWritabilityChanged(Connection c, boolean writable) {
        seen("writable " + writable);
    }

    @Override
    public void onDisconnected(Connection c) {
        seen("disconnected");
    }

    @Override
    public void onPathEvent(Connection c, PathEvent event) {
        seen("path " + event.type());
        paths.add(event);
    }

    @Override
    public void onAddressChange(Connection c) {
        seen("addressChange");
    }

    @Override
    public void onDeviceEvent(Connection c, AsyncEvent event) {
        seen("device " + event.type());
    }

    @Override
    public void onError(Connection c, Throwable t) {
        seen("error");
        error.complete(t);
    }

    @Override
    public void onClosed(Connection c) {
        seen("closed");
        closed.complete(c);
    }

    static String text(Buffer m) {
        byte[] b = new byte[m.length()];
        MemorySegment.copy(m.segment(), ValueLayout.JAVA_BYTE, m.offset(), b, 0, b.length);
        return new String(b, StandardCharsets.UTF_8);
    }

    static int put(Buffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(bytes, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, bytes.length);
        return bytes.length;
    }
}
