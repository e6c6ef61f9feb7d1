package dev.ibex.cm.spi;

import java.util.Set;

/** {@code enum ibv_access_flags}. Local read is always implied. */
public enum Access {
    LOCAL_WRITE(1),
    REMOTE_WRITE(1 << 1),
    REMOTE_READ(1 << 2),
    REMOTE_ATOMIC(1 << 3),
    MW_BIND(1 << 4);

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

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
     * @throws IllegalArgumentException when violated
     */
    public static int validatedMask(Set<Access> flags) {
        if ((flags.contains(REMOTE_WRITE) || flags.contains(REMOTE_ATOMIC)) && !flags.contains(LOCAL_WRITE)) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC access require LOCAL_WRITE, got " + flags);
        }
        return mask(flags);
    }
}
