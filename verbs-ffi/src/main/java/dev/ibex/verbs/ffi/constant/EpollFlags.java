package dev.ibex.verbs.ffi.constant;

/**
 * epoll event bits, {@code epoll_ctl} operations and the {@code epoll_create1} flag.
 *
 * <p>Values of {@code sys/epoll.h constants}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class EpollFlags {
    public static final int EPOLLIN = 0x001;
    public static final int EPOLLPRI = 0x002;
    public static final int EPOLLOUT = 0x004;
    public static final int EPOLLERR = 0x008;
    public static final int EPOLLHUP = 0x010;
    public static final int EPOLLRDHUP = 0x2000;
    public static final int EPOLLEXCLUSIVE = 1 << 28;
    public static final int EPOLLWAKEUP = 1 << 29;
    public static final int EPOLLONESHOT = 1 << 30;
    public static final int EPOLLET = 1 << 31;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLL_CTL_MOD = 3;
    public static final int EPOLL_CLOEXEC = 0x80000;

    private EpollFlags() {
    }
}
