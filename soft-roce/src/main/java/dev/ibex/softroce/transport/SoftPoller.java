package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.EventSource;
import dev.ibex.cm.spi.IdleSpin;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.ResourceTracker;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The soft provider's {@link Poller}: level-triggered readiness over {@link ReadySource}s, parking the polling
 * thread with {@link LockSupport} when nothing is ready. Producers (the NIC threads, the CM) wake it through
 * {@link #signal()}; {@link #wakeup()} works from any thread. Optionally spins briefly before parking
 * ({@code ibex.softroce.poller.spinNanos}), which trades a core for wake-up latency.
 *
 * <p>Threading: {@link #poll} is called by one thread at a time (the event loop); registration, wake-up and
 * close are thread-safe. Polling allocates nothing. How long an idle poll spins before it blocks is its {@link IdleSpin}:
 * by default (the fabric's) a window that adapts to the waits, so that a loop whose peer answers quickly stops paying
 * a thread wake-up per message.
 *
 * <p>With an {@link InlineReception} the polling thread is also the devices' receive thread (run to completion): it
 * reads the links' sockets at each poll and blocks in their selector rather than parking, so a packet for one of its
 * connections is processed and handled without waking another thread. Work its budget cut short (a long burst) waits
 * for its next poll ({@link NextTurn}), which then does not block.
 */
public final class SoftPoller implements Poller, ResourceTracker.Tracked {
    private static final Object[] NO_ATTACHMENTS = {};
    private static final ReadySource[] NO_SOURCES = {};

    private final ResourceTracker tracker;
    private final IdleSpin spin;
    private final InlineReception reception;
    private final AckDeferral acks;
    private final NextTurn nextTurn = new NextTurn();
    private final BooleanSupplier anyReady = this::anyReady;
    private final AtomicBoolean wakeupRequested = new AtomicBoolean();
    private volatile ReadySource[] sources = NO_SOURCES;
    private volatile Object[] attachments = NO_ATTACHMENTS;
    private volatile boolean parked;
    private volatile Thread thread;
    private volatile boolean closed;

    public SoftPoller(ResourceTracker tracker, long spinNanos) {
        this(tracker, spinNanos, null);
    }

    /**
     * A poller whose thread also reads the device links' sockets ({@code reception}, {@code null}: none): it blocks
     * in the reception's selector instead of parking, and processes each packet itself (run to completion).
     *
     * @param tracker counts the poller among the fabric's resources
     * @param spinNanos how long a poll spins before it blocks (0: block at once)
     * @param reception the links this poller's thread reads, or {@code null}
     */
    public SoftPoller(ResourceTracker tracker, long spinNanos, InlineReception reception) {
        this(tracker, spinNanos, 0, reception);
    }

    /**
     * A poller as {@link #SoftPoller(ResourceTracker, long, InlineReception)} that, while it spins, may hold the ACKs
     * of a request/reply exchange across its turns ({@link AckDeferral}).
     *
     * @param tracker counts the poller among the fabric's resources
     * @param spinNanos how long a poll spins before it blocks (0: block at once)
     * @param ackHoldNanos how long a spinning poller may hold an ACK across its turns (0: never; unused without spin)
     * @param reception the links this poller's thread reads, or {@code null}
     */
    public SoftPoller(ResourceTracker tracker, long spinNanos, long ackHoldNanos, InlineReception reception) {
        this(tracker, IdleSpin.fixed(spinNanos), ackHoldNanos, reception);
    }

    /**
     * A poller as {@link #SoftPoller(ResourceTracker, long, long, InlineReception)} whose idle polls spin as
     * {@code spin} says: not at all, a fixed time, or a window that adapts to the waits.
     *
     * @param tracker counts the poller among the fabric's resources
     * @param spin how long an idle poll spins before it blocks; this poller's own (it adapts on the polling thread)
     * @param ackHoldNanos how long a spinning poller may hold an ACK across its turns (0: never; unused without a fixed
     *     spin)
     * @param reception the links this poller's thread reads, or {@code null}
     */
    public SoftPoller(ResourceTracker tracker, IdleSpin spin, long ackHoldNanos, InlineReception reception) {
        this.tracker = tracker;
        this.spin = java.util.Objects.requireNonNull(spin, "spin");
        this.acks = new AckDeferral(!spin.isAdaptive() && spin.max() > 0 ? ackHoldNanos : 0); // a fixed spin only
        this.reception = reception;
        tracker.opened(this);
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.POLLER;
    }

    @Override
    public synchronized void register(EventSource source, Object attachment) {
        requireOpen();
        if (!(source instanceof ReadySource rs)) {
            throw new IllegalArgumentException("not a soft-roce event source: " + source);
        }
        SoftPoller current = rs.poller();
        if (current == this) {
            ReadySource[] s = sources;
            Object[] a = attachments.clone();
            for (int i = 0; i < s.length; i++) {
                if (s[i] == rs) {
                    a[i] = attachment;
                }
            }
            attachments = a;
            return;
        }
        if (current != null) {
            throw new IllegalStateException("the source is registered with another poller");
        }
        ReadySource[] s = Arrays.copyOf(sources, sources.length + 1);
        Object[] a = Arrays.copyOf(attachments, attachments.length + 1);
        s[s.length - 1] = rs;
        a[a.length - 1] = attachment;
        // publish the attachment before the source so a concurrent poll never sees a source without it
        attachments = a;
        sources = s;
        rs.poller(this);
        signal(); // it may be ready already
    }

    @Override
    public synchronized void deregister(EventSource source) {
        ReadySource[] s = sources;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == source) {
                ReadySource[] ns = new ReadySource[s.length - 1];
                Object[] na = new Object[s.length - 1];
                Object[] a = attachments;
                System.arraycopy(s, 0, ns, 0, i);
                System.arraycopy(s, i + 1, ns, i, s.length - i - 1);
                System.arraycopy(a, 0, na, 0, i);
                System.arraycopy(a, i + 1, na, i, s.length - i - 1);
                sources = ns;
                attachments = na;
                s[i].poller(null);
                return;
            }
        }
    }

    @Override
    public int poll(long timeoutNanos, ReadyHandler handler) {
        if (closed) {
            nextTurn.handOff(); // on the polling thread: what it noted last goes to the work queues
            requireOpen();
        }
        thread = Thread.currentThread();
        InlineReception r = reception;
        if (r != null) {
            acks.install();
            nextTurn.install();
            // the ACKs of the last batch leave after what its handlers sent (replies first); those of a message nobody
            // answered wait while the rest of its burst is likely behind, so that one ACK covers the burst
            acks.flushDue(r.readingBehind());
            nextTurn.run(); // bursts and replies the last turn's budget cut short go on here, not on another thread
            if (!r.readsWhileWaiting() || timeoutNanos == 0 || !nextTurn.isEmpty()) {
                receive(r); // what arrived is processed here; its completions are then ready for the scan
            } // else: the wait below reads it, in one call whether it has come or not
        }
        int n = scan(handler);
        if (n > 0 || timeoutNanos == 0 || !nextTurn.isEmpty()) {
            return n;
        }
        long start = System.nanoTime();
        long spinNanos = spin.spinNanos();
        if (spinNanos > 0) {
            long spinEnd = start + (timeoutNanos > 0 ? Math.min(spinNanos, timeoutNanos) : spinNanos);
            do {
                if (wakeupRequested.getAndSet(false)) {
                    return 0;
                }
                Thread.onSpinWait();
                if (r != null) {
                    nextTurn.run();
                    receive(r);
                }
                n = scan(handler);
                if (n > 0) {
                    return n;
                }
                if (r != null) {
                    // nothing handed to the loop, so no reply to wait for: the noted ACKs go now, bar held ones
                    acks.flushDue(false);
                }
            } while (System.nanoTime() - spinEnd < 0);
        }
        boolean slept = false; // once it has, how the wait ended tells the spin's window (IdleSpin)
        long lag = 0; // how late the thread woke for what ended its last sleep: no spin would have waited that
        for (;;) {
            if (wakeupRequested.getAndSet(false) || closed) {
                if (slept) {
                    spin.blockedFor(System.nanoTime() - start - lag);
                }
                return 0;
            }
            boolean readsWhileWaiting = r != null && r.readsWhileWaiting();
            if (r != null) {
                nextTurn.run();
                if (!readsWhileWaiting) {
                    receive(r); // before parked is set: a completion it makes needs no wake-up
                }
            }
            parked = true; // publish before re-testing, see ReadySource
            n = scan(handler);
            if (n > 0 || wakeupRequested.get() || !nextTurn.isEmpty()) {
                parked = false;
                if (n > 0 || !nextTurn.isEmpty()) { // noted work: back to the loop, which polls again at once
                    if (slept) {
                        spin.blockedFor(System.nanoTime() - start - lag);
                    }
                    return n;
                }
                continue;
            }
            long left = -1;
            if (timeoutNanos >= 0) {
                left = timeoutNanos - (System.nanoTime() - start);
                if (left <= 0) {
                    parked = false;
                    if (slept) {
                        spin.timedOut();
                    }
                    return 0;
                }
            }
            if (readsWhileWaiting) {
                acks.flush(); // nothing to hand to the loop: the noted ACKs go before it sleeps
                acks.beginReading();
                try {
                    r.await(left); // sleeps in the read: a datagram (processed here), a wake-up or the timeout
                } finally {
                    acks.endReading();
                }
                if (spin.isAdaptive()) {
                    long l = r.wakeLagNanos();
                    if (l >= 0) {
                        lag = l;
                    }
                }
            } else if (r != null) {
                acks.flush(); // nothing to hand to the loop: the noted ACKs go before it sleeps
                r.await(left); // a readable link, a wake-up or the timeout; a datagram left unread keeps it ready
            } else if (left < 0) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, left);
            }
            parked = false;
            slept = true;
            if (r != null && !readsWhileWaiting) {
                receive(r);
            }
            n = scan(handler);
            if (n > 0) {
                spin.blockedFor(System.nanoTime() - start - lag);
                return n;
            }
            if (timeoutNanos > 0 && System.nanoTime() - start >= timeoutNanos) {
                spin.timedOut();
                return 0;
            }
        }
    }

    /** Reads what the links hold, noting the ACKs its requests ask for instead of sending them one by one. */
    private void receive(InlineReception r) {
        acks.beginReading();
        try {
            r.receiveNow(anyReady);
        } finally {
            acks.endReading();
        }
    }

    /** Whether a source is ready, i.e. a scan would hand the loop work (see {@link InlineReception#receiveNow}). */
    private boolean anyReady() {
        ReadySource[] s = sources;
        for (int i = 0; i < s.length; i++) {
            if (s[i].isReady()) {
                return true;
            }
        }
        return false;
    }

    private int scan(ReadyHandler handler) {
        ReadySource[] s = sources;
        Object[] a = attachments;
        int n = 0;
        for (int i = 0; i < s.length; i++) {
            if (s[i].isReady()) {
                handler.ready(a[i]);
                n++;
            }
        }
        return n;
    }

    /** Called by sources when they become ready: unparks the polling thread if it waits. */
    void signal() {
        if (parked) {
            InlineReception r = reception;
            if (r != null && Thread.currentThread() == thread) {
                return; // the poller's own thread, processing what its wait read: awake already
            }
            if (r != null) {
                r.wake();
                return;
            }
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    @Override
    public void wakeup() {
        wakeupRequested.set(true);
        signal();
    }

    @Override
    public void close() {
        ReadySource[] s;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            spin.release();
            s = sources;
            sources = NO_SOURCES;
            attachments = NO_ATTACHMENTS;
        }
        for (ReadySource r : s) {
            r.poller(null);
        }
        wakeupRequested.set(true);
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
        if (reception != null) {
            if (t == Thread.currentThread()) {
                acks.flush(); // elsewhere the requesters' retransmissions get them acknowledged again
                nextTurn.handOff();
            }
            reception.close(); // ends a blocked await too; the links read on their own threads again
        }
        tracker.closed(this);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("poller is closed");
        }
    }
}
