package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.verbs.ffi.MemoryWindows;
import dev.ibex.verbs.ffi.struct.IbvMw;
import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_mw} ({@code ibv_alloc_mw}); closing deallocates it ({@code ibv_dealloc_mw}), which ends any
 * binding. Its {@link #handle()} is the {@code struct ibv_mw *} a BIND_MW work request names. Thread-safe as far as
 * closing goes.
 */
final class NativeMemoryWindow extends NativeResource implements MemoryWindow {
    private final NativeProtectionDomain pd;
    private final Type type;
    private final MemorySegment mw;

    NativeMemoryWindow(NativeProtectionDomain pd, Type type) {
        super(pd.fabric);
        this.pd = pd;
        this.type = type;
        this.mw = MemoryWindows.allocMw(pd.segment(), type.code());
        tracked();
    }

    MemorySegment segment() {
        return mw;
    }

    @Override
    String describe() {
        return "type " + type.code() + " MW on " + pd.describe();
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public Type type() {
        return type;
    }

    @Override
    public int rkey() {
        ensureOpen();
        return IbvMw.rkey(mw);
    }

    @Override
    public long handle() {
        return mw.address();
    }

    @Override
    void destroy() {
        MemoryWindows.deallocMw(mw);
    }
}
