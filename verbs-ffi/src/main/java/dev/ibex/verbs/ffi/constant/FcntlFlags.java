package dev.ibex.verbs.ffi.constant;

/**
 * {@code fcntl} commands and the flags the bindings set.
 *
 * <p>Values of {@code fcntl.h constants}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class FcntlFlags {
    public static final int F_GETFD = 1;
    public static final int F_SETFD = 2;
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int FD_CLOEXEC = 1;
    public static final int O_NONBLOCK = 0x800;

    private FcntlFlags() {
    }
}
