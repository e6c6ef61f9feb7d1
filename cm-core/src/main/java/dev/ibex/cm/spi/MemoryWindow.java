package dev.ibex.cm.spi;

/**
 * {@code struct ibv_mw}: a window onto part of a {@link MemoryRegion} that remote peers reach with the window's own
 * rkey, with its own rights, and that can be taken back without deregistering the region. A type 2 window is bound
 * with a {@link WrOpcode#BIND_MW} work request to one QP, only requests arriving on that QP may use it, and it ends
 * with {@link WrOpcode#LOCAL_INV}, the peer's {@link WrOpcode#SEND_WITH_INV}, or when it is deallocated; a type 1
 * window is bound with {@link QueuePair#bindMemoryWindow} and any QP of the PD may use it. Closing deallocates it
 * ({@code ibv_dealloc_mw}), which invalidates any binding. Thread-safe as far as closing goes; binds are posted on
 * the QP's posting thread.
 */
public interface MemoryWindow extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.MEMORY_WINDOW;
    }

    /** {@code enum ibv_mw_type}. */
    enum Type {
        /** {@code IBV_MW_TYPE_1}: bound with {@link QueuePair#bindMemoryWindow}; any QP of the PD may use it. */
        TYPE_1(1),
        /** {@code IBV_MW_TYPE_2}: bound by a {@link WrOpcode#BIND_MW} work request to one QP. */
        TYPE_2(2);

        private final int code;

        Type(int code) {
            this.code = code;
        }

        /** {@return the {@code enum ibv_mw_type} value} */
        public int code() {
            return code;
        }
    }

    /** {@return the protection domain the window was allocated in} */
    ProtectionDomain pd();

    /** {@return the window's type} */
    Type type();

    /**
     * The rkey of the window's latest binding as far as this process knows: {@code ibv_mw.rkey} after allocation and
     * after each {@link QueuePair#bindMemoryWindow} of a type 1 window; a type 2 window's new rkey is the one its
     * BIND_MW work request named.
     *
     * @return the rkey
     */
    int rkey();

    /** {@return the value written into {@code ibv_send_wr.bind_mw.mw} (a native pointer or a provider handle)} */
    long handle();

    /**
     * {@code ibv_inc_rkey}: {@code rkey} with its low 8 bits (the consumer's key) advanced by one, the rest kept — the
     * rkey to give a window's next binding, so that descriptors of earlier bindings stop matching.
     *
     * @param rkey the window's current rkey
     * @return the next one
     */
    static int nextRkey(int rkey) {
        return (rkey & 0xFFFFFF00) | ((rkey + 1) & 0xFF);
    }
}
