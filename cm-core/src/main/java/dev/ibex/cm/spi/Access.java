package dev.ibex.cm.spi;

import java.util.Set;

/** {@code enum ibv_access_flags}. Local read is always implied. */
public enum Access {
    /**
     * {@code IBV_ACCESS_LOCAL_WRITE}: the device may write the memory (receives, RDMA READ results); needed by remote
     * write and atomics.
     */
    LOCAL_WRITE(1),
    /** {@code IBV_ACCESS_REMOTE_WRITE}: peers may RDMA WRITE into the memory. */
    REMOTE_WRITE(1 << 1),
    /** {@code IBV_ACCESS_REMOTE_READ}: peers may RDMA READ the memory. */
    REMOTE_READ(1 << 2),
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}: peers may run atomics on the memory. */
    REMOTE_ATOMIC(1 << 3),
    /** {@code IBV_ACCESS_MW_BIND}: memory windows may be bound over the region. */
    MW_BIND(1 << 4);

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    /** {@return the flag's {@code ibv_access_flags} bit} */
    public int bit() {
        return bit;
    }

    /**
     * The OR of the flags' bits, unchecked.
     *
     * @param flags the flags
     * @return the {@code ibv_access_flags} mask
     */
    public static int mask(Set<Access> flags) {
        int m = 0;
        for (Access a : flags) {
            m |= a.bit;
        }
        return m;
    }

    /**
     * Checks the verbs rule that remote write and remote atomic access need local write.
     *
     * @param flags the flags
     * @return the {@code ibv_access_flags} mask
     * @throws IllegalArgumentException when violated
     */
    public static int validatedMask(Set<Access> flags) {
        if ((flags.contains(REMOTE_WRITE) || flags.contains(REMOTE_ATOMIC)) && !flags.contains(LOCAL_WRITE)) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC access require LOCAL_WRITE, got " + flags);
        }
        return mask(flags);
    }
}
