package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.verbs.ffi.CompletionQueues;
import dev.ibex.verbs.ffi.LibC;
import dev.ibex.verbs.ffi.struct.IbvCompChannel;
import dev.ibex.verbs.ffi.struct.IbvCq;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_comp_channel} with a non-blocking fd. {@link #poll()} is {@code ibv_get_cq_event} until
 * EAGAIN; each event it returns is counted on its CQ (not acknowledged: the reader batches
 * {@link CompletionQueue#ackEvents}, and the CQ settles the rest before it is destroyed).
 */
final class NativeCompletionChannel extends NativeResource implements CompletionChannel, FdSource {
    private final NativeDeviceContext device;
    private final MemorySegment channel;
    private final int fd;

    NativeCompletionChannel(NativeDeviceContext device) {
        super(device.fabric);
        this.device = device;
        MemorySegment ch = CompletionQueues.createCompChannel(device.segment());
        try {
            LibC.setNonBlocking(IbvCompChannel.fd(ch));
        } catch (RuntimeException e) {
            CompletionQueues.destroyCompChannel(ch);
            throw e;
        }
        this.channel = ch;
        this.fd = IbvCompChannel.fd(ch);
        tracked();
    }

    @Override
    NativeDeviceContext owner() {
        return device;
    }

    NativeDeviceContext device() {
        return device;
    }

    MemorySegment segment() {
        return channel;
    }

    @Override
    String describe() {
        return "completion channel fd " + fd;
    }

    @Override
    public int pollFd() {
        return fd;
    }

    @Override
    public CompletionQueue poll() {
        ensureOpen();
        while (true) {
            MemorySegment cq = CompletionQueues.getCqEvent(channel);
            if (cq.address() == 0) {
                return null;
            }
            long handle = cq.get(ValueLayout.JAVA_LONG, IbvCq.OFFSET_CQ_CONTEXT);
            NativeCompletionQueue q = fabric.handles().lookup(handle, NativeCompletionQueue.class);
            if (q != null && q.eventReceived()) {
                return q;
            }
            if (q == null) {
                // not one of ours any more: settle it here so its destroy cannot wait for it
                CompletionQueues.ackCqEvents(cq, 1);
            }
        }
    }

    @Override
    void destroy() {
        CompletionQueues.destroyCompChannel(channel);
    }
}
