package dev.ibex.softroce;

import dev.ibex.softroce.net.SoftPort;
import dev.ibex.softroce.transport.InlineReception;
import dev.ibex.softroce.transport.ReceptionProgress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link InlineReception} over the devices' {@link SoftPort}s: their receive threads end, their sockets are
 * registered with one selector, and the event loop that polls reads them ({@value #BATCH} datagrams per socket per
 * turn, so a flooded address cannot starve the loop's other work). Closing hands every socket back to its receive
 * thread (and the fabric's next poller takes them again).
 *
 * <p>A loop that reads one port alone reads it directly where it can ({@link SoftPort#receiveDirectly}): no selector,
 * and it sleeps in the read itself ({@link #await} reads), woken for other work by an empty datagram to the port —
 * one system call per datagram instead of {@code epoll_wait} and a read.
 *
 * <p><b>Threading.</b> {@link #receiveNow} and {@link #await} on the polling thread; {@link #wake} and
 * {@link #close} from any thread.
 */
final class LoopReception implements InlineReception {
    private static final Logger LOG = LoggerFactory.getLogger(LoopReception.class);
    /** Datagrams read from one socket per {@link #receiveNow}. */
    static final int BATCH = 64;
    /** Calls without finding the links empty after which {@link #receiveNow} reads in full batches again. */
    static final int HAND_OFF_CALLS = 4;

    /** The sockets' selector; null when the loop reads its one port directly. */
    private final Selector selector;
    private final SoftPort[] ports;
    private final SoftPort.Reader[] readers;
    private final Consumer<SelectionKey> ignore = key -> { }; // the reads follow the select, socket by socket
    /** A stream's batches read on whatever they make ready. */
    private static final BooleanSupplier NEVER = () -> false;
    private final Runnable whenClosed;
    /** Tells the retransmit timers whether this loop keeps up with its sockets. */
    private final ReceptionProgress progress;
    /** Calls of {@link #receiveNow} since one found every link empty (polling thread only). */
    private int sinceEmpty;
    private volatile boolean closed;

    private LoopReception(Selector selector, SoftPort[] ports, ReceptionProgress progress, Runnable whenClosed) {
        this.selector = selector;
        this.progress = progress;
        this.ports = ports;
        this.whenClosed = whenClosed;
        this.readers = new SoftPort.Reader[ports.length];
        for (int i = 0; i < ports.length; i++) {
            readers[i] = ports[i].newReader();
        }
    }

    /**
     * Takes reception of {@code ports} from their receive threads; {@code whenClosed} runs once they have them back.
     * {@code progress} hears when the loop finds the sockets empty and when it waits.
     *
     * @throws UncheckedIOException when the selector cannot be opened or a socket cannot be handed over (those
     *     handed over already are given back)
     */
    static LoopReception lend(List<SoftPort> ports, ReceptionProgress progress, Runnable whenClosed) {
        Selector selector = null;
        SoftPort[] lent = new SoftPort[ports.size()];
        int n = 0;
        try {
            for (SoftPort p : ports) {
                DatagramChannel ch = p.lendReception();
                lent[n++] = p;
                if (ports.size() == 1 && p.receiveDirectly()) {
                    break;
                }
                if (selector == null) {
                    selector = Selector.open();
                }
                ch.register(selector, SelectionKey.OP_READ);
            }
            if (n == 0) {
                selector = Selector.open(); // nothing to read: wait for wake-ups alone
            }
        } catch (IOException | RuntimeException e) {
            if (selector != null) {
                closeQuietly(selector);
            }
            for (int i = 0; i < n; i++) {
                lent[i].reclaimReception();
            }
            throw e instanceof IOException io
                    ? new UncheckedIOException("cannot read the soft devices' sockets on the loop", io)
                    : (RuntimeException) e;
        }
        progress.lent(true);
        return new LoopReception(selector, lent, progress, whenClosed);
    }

    /**
     * Reads up to {@value #BATCH} datagrams per link. While the links were found empty within the last
     * {@value #HAND_OFF_CALLS} calls (request and response: the loop keeps up), it reads one datagram at a time and
     * stops at the first that gives the loop work to hand on — a completion for the application — so that the answer
     * the application sends leaves before the datagrams behind it are read: typically the ACK the peer sent right
     * after its request, whose reading and processing otherwise held up every reply (docs/benchmarks.md, "The reply
     * before the ACK behind its request"). A stream that keeps the links full is read in full batches again after
     * {@value #HAND_OFF_CALLS} calls.
     */
    @Override
    public int receiveNow(BooleanSupplier handOff) {
        boolean stopAtHandOff = sinceEmpty < HAND_OFF_CALLS;
        int n = 0;
        boolean empty = true;
        for (int i = 0; i < ports.length; i++) {
            int got;
            if (stopAtHandOff) {
                got = 0;
                while (got < BATCH && ports[i].receiveAvailable(readers[i], 1) == 1) {
                    got++;
                    if (handOff.getAsBoolean()) {
                        sinceEmpty = Math.min(sinceEmpty + 1, HAND_OFF_CALLS); // the rest: at the next call
                        return n + got;
                    }
                }
            } else {
                got = ports[i].receiveAvailable(readers[i], BATCH);
            }
            n += got;
            empty &= got < BATCH;
        }
        if (empty) {
            sinceEmpty = 0;
            progress.drained();
        } else {
            sinceEmpty = Math.min(sinceEmpty + 1, HAND_OFF_CALLS);
        }
        return n;
    }

    @Override
    public boolean readsWhileWaiting() {
        return selector == null;
    }

    @Override
    public int await(long timeoutNanos) {
        progress.waiting(true);
        try {
            if (selector == null) {
                return awaitDirect(timeoutNanos);
            }
            if (timeoutNanos < 0) {
                selector.select(ignore);
            } else {
                selector.select(ignore, Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
            }
        } catch (IOException | ClosedSelectorException e) {
            if (!closed) {
                LOG.warn("soft-roce: the loop's socket selector failed: {}", e.toString());
            }
        } finally {
            progress.waiting(false);
        }
        return 0;
    }

    /**
     * The direct wait: one datagram, slept for in the read. While the reads keep finding datagrams there already (a
     * stream the loop is behind: {@value #HAND_OFF_CALLS} in a row), it reads what is there in full batches instead,
     * as {@link #receiveNow} would, so that a stream is read and acknowledged a batch at a time, not a datagram per
     * turn of the loop; once a batch finds the socket empty, it sleeps in the read again.
     */
    private int awaitDirect(long timeoutNanos) {
        if (sinceEmpty >= HAND_OFF_CALLS) {
            int n = receiveNow(NEVER);
            if (n > 0) {
                return n;
            }
        }
        int n = ports[0].receiveWaiting(readers[0], timeoutNanos < 0 ? -1 : Math.max(1, timeoutNanos));
        if (n == 1) {
            sinceEmpty = Math.min(sinceEmpty + 1, HAND_OFF_CALLS); // it was there already: behind
            return 1;
        }
        sinceEmpty = 0;
        progress.drained(); // it slept (the socket was empty), timed out, or read the nudge behind all before it
        return n == 0 ? 0 : 1;
    }

    @Override
    public boolean readingBehind() {
        return sinceEmpty > 0 && sinceEmpty < HAND_OFF_CALLS; // at HAND_OFF_CALLS: batches, acknowledged per turn
    }

    @Override
    public long wakeLagNanos() {
        return selector == null ? ports[0].wakeLagNanos() : -1;
    }

    @Override
    public void wake() {
        if (selector == null) {
            ports[0].nudge();
        } else {
            selector.wakeup();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (selector != null) {
            closeQuietly(selector); // deregisters the sockets and ends a blocked select
        }
        for (int i = 0; i < ports.length; i++) {
            readers[i].release();
            ports[i].reclaimReception();
        }
        progress.lent(false);
        whenClosed.run();
    }

    private static void closeQuietly(Selector s) {
        try {
            s.close();
        } catch (IOException e) {
            LOG.debug("soft-roce: closing the loop's socket selector failed: {}", e.toString());
        }
    }
}
