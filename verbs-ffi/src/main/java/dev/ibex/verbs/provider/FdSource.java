package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.EventSource;

/** An {@link EventSource} backed by a non-blocking file descriptor, which {@link EpollPoller} waits on. */
interface FdSource extends EventSource {
    /** The fd to add to epoll (already non-blocking). */
    int pollFd();

    /** A second fd (an eventfd) that also makes this source ready, or -1 (the default): none. */
    default int wakeFd() {
        return -1;
    }
}
