package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.Libc.EAGAIN;
import static dev.ibex.softroce.net.Libc.EINTR;
import static dev.ibex.softroce.net.Libc.MSG_DONTWAIT;
import static dev.ibex.softroce.net.Libc.SOCKADDR_IN;
import static dev.ibex.softroce.net.Libc.SOL_SOCKET;
import static dev.ibex.softroce.net.Libc.SO_RCVBUF;
import static dev.ibex.softroce.net.Libc.SO_RCVTIMEO;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The socket a single event loop reads a port through while reception is lent to it directly ({@link
 * PortReception#lendDirect}): a libc UDP socket in the port's {@code SO_REUSEPORT} group, to which the group's steering
 * program sends every datagram while it is open. It is blocking, so the loop can sleep in the read itself — one system
 * call per datagram, where a {@code Selector} takes {@code epoll_wait} and then a read (docs/benchmarks.md, "The
 * socket's shape": 1.19–1.26× the p50 of a blocking read) — and read without waiting ({@code MSG_DONTWAIT}) when it has
 * other work. A wait ends with a datagram, its deadline or {@link #close}; the port wakes a waiting loop with an empty
 * datagram to itself. A deadline within {@link #PRECISE_NANOS} is waited in {@code ppoll} (then read), one further
 * away by the read's timeout ({@code SO_RCVTIMEO}, set to end that much early, changed only when the one set would
 * end it too late).
 *
 * <p>It joins the group third, after the channel and the offload socket ({@link PortSockets} binds them in that
 * order), so the program that steers to it returns {@value #GROUP_INDEX}; closing it steers back to the channel
 * first.
 *
 * <p>Threading: {@link #receive} by one thread at a time (the loop); {@link #close} from any thread, which wakes a
 * read in progress and waits (bounded) for it to leave before the descriptor is closed.
 */
final class ReceiveSocket implements AutoCloseable {
    /** System property: {@code false} keeps a loop that reads one port in its selector (the socket is never opened). */
    static final String PROPERTY = "ibex.softroce.directReceive";
    /** The socket's place in the port's group: after the channel (0) and the offload socket (1). */
    static final int GROUP_INDEX = 2;
    /** {@link #receive}: nothing read (none waiting, the wait timed out or was interrupted). */
    static final int NOTHING = -1;
    /** {@link #receive}: the socket is closed. */
    static final int CLOSED = -2;

    private static final Logger LOG = LoggerFactory.getLogger(ReceiveSocket.class);
    private static final int IDLE = 0, READING = 1, SHUT = -1;
    private static final long MIN_TIMEOUT_NANOS = 1_000;
    /**
     * The read's own timeout ({@code SO_RCVTIMEO}) is kept in scheduler ticks, and a wait of any length up to 3 ms
     * lasted 8 ms on this project's machines (HZ 250; two ticks, so up to 20 ms at HZ 100). So the last 25 ms of a
     * timed wait are waited in {@code ppoll} (a high-resolution timer) and the read before them is set to end that
     * much early: a loop timer fires on time, and a wait with a far deadline is still one read per datagram.
     */
    static final long PRECISE_NANOS = 25_000_000;
    /** System property: {@link #SLEPT_NANOS} for this JVM (tests set it high to make every read count as behind). */
    static final String SLEPT_PROPERTY = "ibex.softroce.directReceive.sleptNanos";
    /**
     * A read that could wait and took longer than this slept: {@link #waited}. A wake-up takes several µs, reading a
     * datagram that is there well under one on a warm JVM; a cold or preempted read that counts as a sleep only makes
     * the loop read a stream one datagram at a time a little longer.
     */
    private static final long SLEPT_NANOS = 2_000;
    /** How long {@link #close} waits for a read in progress to leave before it closes the descriptor anyway. */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final int fd;
    private final long sleptNanos = Long.getLong(SLEPT_PROPERTY, SLEPT_NANOS);
    private final Arena arena = Arena.ofShared();
    private final MemorySegment from, fromLength, callState, timeval, pollFd, timespec, stamp, clock;
    /** {@link #IDLE}, {@link #READING} (a call in progress) or {@link #SHUT}: a read never races the close of fd. */
    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** The {@code SO_RCVTIMEO} set, in ns (0: none, a read waits for ever); reader only. */
    private long armed;
    /** The last waiting read timed out: the next sets its timeout exactly (reader only). */
    private boolean expired;
    private int srcIp, srcPort;
    /** The last read that could wait took long enough to have slept (reader only). */
    private boolean waited;
    /** The last read's result, and when it began and returned ({@link System#nanoTime}; reader only). */
    private long lastLength, readStart, readEnd;

    private ReceiveSocket(int fd) {
        this.fd = fd;
        this.from = arena.allocate(SOCKADDR_IN, 8);
        this.fromLength = arena.allocate(ValueLayout.JAVA_INT);
        this.callState = arena.allocate(Libc.CALL_STATE);
        this.timeval = arena.allocate(16, 8);
        this.pollFd = arena.allocate(8, 4); // struct pollfd: fd, events, revents
        this.timespec = arena.allocate(16, 8);
        this.stamp = arena.allocate(16, 8);
        this.clock = arena.allocate(16, 8);
        pollFd.set(ValueLayout.JAVA_INT, 0, fd);
        pollFd.set(ValueLayout.JAVA_SHORT, 4, Libc.POLLIN);
    }

    /** Whether this JVM can open such sockets here ({@link Libc#AVAILABLE}, {@value #PROPERTY} not false). */
    static boolean available() {
        return Libc.AVAILABLE && !"false".equalsIgnoreCase(System.getProperty(PROPERTY));
    }

    /**
     * Opens the socket on {@code ip:udpPort}, whose group holds the channel and the offload socket already, and steers
     * every datagram to it.
     *
     * @return the socket, or null when the kernel refused a step (logged; the loop then keeps its selector)
     */
    static ReceiveSocket open(int ip, int udpPort, int receiveBufferBytes) {
        if (!available()) {
            return null;
        }
        String where = dev.ibex.softroce.wire.Ipv4.toString(ip) + ":" + udpPort;
        int fd;
        try {
            fd = Libc.openInGroup(ip, udpPort, SO_RCVBUF, receiveBufferBytes);
        } catch (java.io.IOException e) {
            LOG.debug("port {}: no direct reception: {}", where, e.getMessage());
            return null;
        }
        ReceiveSocket s = new ReceiveSocket(fd);
        try {
            if (Libc.steer(s.callState, fd, GROUP_INDEX) != 0) {
                LOG.debug("port {}: no direct reception: SO_ATTACH_REUSEPORT_CBPF failed, errno {}", where,
                        Libc.errno(s.callState));
                s.closeNow();
                return null;
            }
        } catch (Throwable t) {
            s.closeNow();
            throw new IllegalStateException("libc call failed", t);
        }
        return s;
    }

    /**
     * Reads one datagram into {@code buffer} (native memory).
     *
     * @param buffer   where the datagram goes
     * @param capacity the most bytes to read (a longer datagram is cut to this)
     * @param waitNanos 0: do not wait; negative: wait for ever; else the longest wait (it may end early, or late by the
     *     thread's timer slack, 50 us by default)
     * @return the datagram's length ({@link #sourceIp()}, {@link #sourcePort()} then say whose), {@link #NOTHING} or
     *     {@link #CLOSED}
     */
    int receive(MemorySegment buffer, int capacity, long waitNanos) {
        if (!state.compareAndSet(IDLE, READING)) {
            return CLOSED;
        }
        try {
            int flags = MSG_DONTWAIT;
            long t0 = waitNanos != 0 ? System.nanoTime() : 0;
            readStart = t0;
            lastLength = NOTHING;
            if (waitNanos > 0 && waitNanos <= PRECISE_NANOS) {
                if (!readable(waitNanos)) {
                    waited = true;
                    return NOTHING;
                }
            } else if (waitNanos != 0) {
                flags = 0;
                arm(waitNanos < 0 ? waitNanos : waitNanos - PRECISE_NANOS); // ends early: ppoll waits out the rest
            }
            fromLength.set(ValueLayout.JAVA_INT, 0, SOCKADDR_IN);
            long n = (long) Libc.RECVFROM.invokeExact(callState, fd, buffer, (long) capacity, flags, from, fromLength);
            readEnd = waitNanos != 0 ? System.nanoTime() : 0;
            waited = waitNanos != 0 && readEnd - t0 > sleptNanos;
            lastLength = n;
            if (n < 0) {
                int errno = Libc.errno(callState);
                if (errno == EAGAIN && flags == 0) {
                    expired = true;
                } else if (errno != EAGAIN && errno != EINTR) {
                    LOG.debug("direct reception: recvfrom failed, errno {}", errno);
                }
                return NOTHING;
            }
            srcIp = Libc.sockaddrIp(from);
            srcPort = Libc.sockaddrPort(from);
            return (int) n;
        } catch (Throwable t) {
            throw new IllegalStateException("recvfrom failed", t);
        } finally {
            state.set(IDLE); // only the reader leaves READING; close waits for it
        }
    }

    /**
     * Waits up to {@code waitNanos} for a datagram (or a shutdown) in {@code ppoll}, whose timeout is a high-resolution
     * timer: the last {@link #PRECISE_NANOS} of every timed wait, where the read's own timeout would end it late.
     *
     * @return whether the socket is readable: false when the wait ran out or a signal ended it
     */
    private boolean readable(long waitNanos) throws Throwable {
        pollFd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
        timespec.set(ValueLayout.JAVA_LONG, 0, waitNanos / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, waitNanos % 1_000_000_000L);
        int ready = (int) Libc.PPOLL.invokeExact(callState, pollFd, 1L, timespec, MemorySegment.NULL);
        if (ready < 0 && Libc.errno(callState) != EINTR) {
            LOG.debug("direct reception: ppoll failed, errno {}", Libc.errno(callState));
        }
        return ready > 0;
    }

    /**
     * {@return whether the last {@link #receive} that could wait slept before its datagram came — the socket was
     * empty — rather than finding one there (a stream the loop is behind)}
     */
    boolean waited() {
        return waited;
    }

    /**
     * How late the reader woke for the datagram the last {@link #receive} slept for: from the moment the datagram
     * reached the socket (the stack's receive timestamp, {@code SIOCGSTAMPNS}) to the moment the read returned it.
     * What a spin would have had to wait is the sleep without this lag ({@code IdleSpin}); on a machine whose wake-ups
     * are slow the lag is most of the sleep. The first call turns the socket's timestamps on, so datagrams that came
     * before it have none (0). Costs an {@code ioctl} and a clock read, so it is asked only after a sleep.
     *
     * @return the lag in ns; 0 when the read slept but read nothing (a timeout), or the timestamp is not known; -1 when
     *     the last read did not sleep
     */
    long wakeLagNanos() {
        if (!waited) {
            return -1;
        }
        if (lastLength < 0 || !state.compareAndSet(IDLE, READING)) {
            return 0;
        }
        try {
            if ((int) Libc.IOCTL.invokeExact(callState, fd, Libc.SIOCGSTAMPNS, stamp) != 0) {
                return 0;
            }
            int ignored = (int) Libc.CLOCK_GETTIME.invokeExact(Libc.CLOCK_REALTIME, clock);
            long sinceRead = System.nanoTime() - readEnd;
            long age = (clock.get(ValueLayout.JAVA_LONG, 0) - stamp.get(ValueLayout.JAVA_LONG, 0)) * 1_000_000_000L
                    + clock.get(ValueLayout.JAVA_LONG, 8) - stamp.get(ValueLayout.JAVA_LONG, 8);
            long lag = age - sinceRead;
            // a stamp from before the read began, or one the kernel made up at the first call (now), is no lag
            return lag > 0 && lag <= readEnd - readStart ? lag : 0;
        } catch (Throwable t) {
            throw new IllegalStateException("ioctl failed", t);
        } finally {
            state.set(IDLE);
        }
    }

    /** {@return the source address of the datagram {@link #receive} read last, as an int} */
    int sourceIp() {
        return srcIp;
    }

    /** {@return the source UDP port of the datagram {@link #receive} read last} */
    int sourcePort() {
        return srcPort;
    }

    /**
     * Sets {@code SO_RCVTIMEO} for a wait of {@code waitNanos} when the one set would end it late: rounded down to a
     * power of two, so that a deadline coming nearer read by read changes it a few times, not at every read. A wait
     * that ends early costs one empty turn; after one, the next timeout is set exactly.
     */
    private void arm(long waitNanos) throws Throwable {
        long want;
        if (waitNanos < 0) {
            if (armed == 0 || !expired) {
                return; // none set, or one that may end the wait early: harmless, and cleared once it has
            }
            want = 0;
        } else if (expired) {
            want = Math.max(waitNanos, MIN_TIMEOUT_NANOS);
        } else if (armed != 0 && armed <= waitNanos) {
            return;
        } else {
            want = Long.highestOneBit(Math.max(waitNanos, MIN_TIMEOUT_NANOS));
        }
        expired = false;
        // a timeval of 0 means no timeout at all: a wait shorter than a microsecond (a timer just due, or what was left
        // of one after a datagram) must still end, so it is set to the smallest one there is
        long micros = want == 0 ? 0 : Math.max(1, want / 1_000);
        want = micros * 1_000;
        if (want == armed) {
            return;
        }
        timeval.set(ValueLayout.JAVA_LONG, 0, micros / 1_000_000);
        timeval.set(ValueLayout.JAVA_LONG, 8, micros % 1_000_000);
        if ((int) Libc.SETSOCKOPT.invokeExact(callState, fd, SOL_SOCKET, SO_RCVTIMEO, timeval, 16) != 0) {
            LOG.debug("direct reception: SO_RCVTIMEO failed, errno {}", Libc.errno(callState));
            return;
        }
        armed = want;
    }

    /**
     * Steers the group's datagrams back to the channel and closes the socket; a read in progress is woken and left
     * first. What the socket still held is lost, as on a wire (RC retransmits it). Idempotent.
     */
    @Override
    public void close() {
        if (state.get() == SHUT) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(Libc.CALL_STATE);
            if (Libc.steer(st, fd, 0) != 0) {
                LOG.warn("direct reception: cannot steer datagrams back to the channel, errno {}", Libc.errno(st));
            }
            long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
            while (!state.compareAndSet(IDLE, SHUT)) {
                if (state.get() == SHUT) {
                    return;
                }
                int ignored = (int) Libc.SHUTDOWN.invokeExact(st, fd, Libc.SHUT_RD); // ends a waiting read
                if (System.nanoTime() - deadline > 0) {
                    LOG.warn("direct reception: a read did not leave the socket within {} s; closing it anyway",
                            TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS));
                    state.set(SHUT);
                    break;
                }
                LockSupport.parkNanos(100_000);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("libc call failed", t);
        }
        closeNow();
    }

    private void closeNow() {
        state.set(SHUT);
        Libc.closeQuietly(fd);
        arena.close();
    }
}
