package dev.ibex.softroce.net;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Serialises the senders of one socket without allocating. {@code DatagramChannel.send} takes the channel's
 * {@code ReentrantLock}, and a contended {@code ReentrantLock} allocates a 32-byte queue node for every waiter —
 * on the soft NIC that was once per packet whenever an application thread posted while a receive thread sent an
 * ACK. Holding this lock around the send keeps the channel's lock uncontended (a CAS, no allocation). Waiters
 * spin briefly (a send is a few microseconds), then yield, then park for short intervals; none of that allocates.
 */
final class TransmitLock {
    private static final VarHandle HELD;
    private static final int SPINS = 200;
    private static final int YIELDS = 50;
    private static final long PARK_NANOS = 20_000;

    static {
        try {
            HELD = MethodHandles.lookup().findVarHandle(TransmitLock.class, "held", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through HELD
    private volatile int held;

    void lock() {
        if (HELD.compareAndSet(this, 0, 1)) {
            return;
        }
        for (int i = 0;; i++) {
            if (held == 0 && HELD.compareAndSet(this, 0, 1)) {
                return;
            }
            if (i < SPINS) {
                Thread.onSpinWait();
            } else if (i < SPINS + YIELDS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
    }

    void unlock() {
        HELD.setRelease(this, 0);
    }
}
