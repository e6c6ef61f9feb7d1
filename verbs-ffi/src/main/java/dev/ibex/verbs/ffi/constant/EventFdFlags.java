package dev.ibex.verbs.ffi.constant;

/**
 * {@code eventfd} flags.
 *
 * <p>Values of {@code sys/eventfd.h flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class EventFdFlags {
    public static final int EFD_SEMAPHORE = 1;
    public static final int EFD_CLOEXEC = 0x80000;
    public static final int EFD_NONBLOCK = 0x800;

    private EventFdFlags() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(EventFdFlags.class, mask);
    }
}
