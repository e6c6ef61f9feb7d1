package dev.ibex.softroce.transport;

import dev.ibex.softroce.wire.Ipv4;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts remote access errors (NAK remote access error: an rkey, range or right the peer was not given) per peer
 * address and cuts off a peer that keeps making them: after {@code errors} within {@code window}, every packet from
 * that address — CM MADs included — is dropped on arrival for {@code block}, twice as long at each repeat (up to an
 * hour). Each error already costs the guessing peer its connection (the QP goes to ERR); this bounds how many
 * connections per minute it can spend on guessing, so brute-forcing the 2^24 key space takes years, not minutes.
 *
 * <p>Defaults: 16 errors per 60 s, then 60 s; {@code ibex.softroce.accessErrors.limit}, {@code .windowMillis} and
 * {@code .blockMillis} override them, {@link #limits} for a running device.
 *
 * <p>Threading: any thread. {@link #admits} runs for every packet: one volatile read while nobody is blocked, a scan
 * of the few blocked addresses otherwise; it allocates nothing.
 */
public final class AccessGuard {
    private static final Logger LOG = LoggerFactory.getLogger(AccessGuard.class);
    private static final long MAX_BLOCK_NANOS = Duration.ofHours(1).toNanos();

    private final String device;
    private final ConcurrentHashMap<Integer, Peer> peers = new ConcurrentHashMap<>();
    private final LongAdder dropped = new LongAdder();
    private volatile int limit = Integer.getInteger("ibex.softroce.accessErrors.limit", 16);
    private volatile long windowNanos = Duration.ofMillis(Long.getLong("ibex.softroce.accessErrors.windowMillis",
            60_000)).toNanos();
    private volatile long blockNanos = Duration.ofMillis(Long.getLong("ibex.softroce.accessErrors.blockMillis",
            60_000)).toNanos();
    /** Blocked addresses and until when (copy on write; a handful at most). */
    private volatile Blocked blocked = Blocked.NONE;

    private record Blocked(int[] ips, long[] until) {
        static final Blocked NONE = new Blocked(new int[0], new long[0]);
    }

    private static final class Peer {
        long windowStart;
        int inWindow;
        long total;
        int blocks;
    }

    AccessGuard(String device) {
        this.device = device;
    }

    /** Sets the policy: {@code errors} within {@code window} block the peer for {@code block} (then 2x, 4x …). */
    public void limits(int errors, Duration window, Duration block) {
        if (errors < 1 || window.isNegative() || window.isZero() || block.isNegative()) {
            throw new IllegalArgumentException("errors must be positive, window positive, block not negative");
        }
        this.limit = errors;
        this.windowNanos = window.toNanos();
        this.blockNanos = block.toNanos();
    }

    /** A request from {@code ip} was refused with a remote access error. */
    public void remoteAccessError(int ip) {
        long now = System.nanoTime();
        Peer p = peers.computeIfAbsent(ip, k -> new Peer());
        long blockFor;
        synchronized (p) {
            p.total++;
            if (p.inWindow == 0 || now - p.windowStart > windowNanos) {
                p.windowStart = now;
                p.inWindow = 0;
            }
            if (++p.inWindow < limit) {
                return;
            }
            p.inWindow = 0;
            blockFor = Math.min(MAX_BLOCK_NANOS, blockNanos << Math.min(p.blocks, 12));
            p.blocks++;
        }
        LOG.warn("{}: {} made {} remote access errors within {} ms: dropping its packets for {} ms", device,
                Ipv4.toString(ip), limit, windowNanos / 1_000_000, blockFor / 1_000_000);
        block(ip, now + blockFor);
    }

    private synchronized void block(int ip, long until) {
        Blocked b = blocked;
        int i = indexOf(b, ip);
        int[] ips = i >= 0 ? b.ips.clone() : Arrays.copyOf(b.ips, b.ips.length + 1);
        long[] untils = i >= 0 ? b.until.clone() : Arrays.copyOf(b.until, b.until.length + 1);
        int at = i >= 0 ? i : ips.length - 1;
        ips[at] = ip;
        untils[at] = until;
        blocked = new Blocked(ips, untils);
    }

    private synchronized void unblock(int ip) {
        Blocked b = blocked;
        int i = indexOf(b, ip);
        if (i < 0 || System.nanoTime() - b.until[i] < 0) {
            return;
        }
        int n = b.ips.length - 1;
        int[] ips = new int[n];
        long[] untils = new long[n];
        for (int j = 0, k = 0; j <= n; j++) {
            if (j != i) {
                ips[k] = b.ips[j];
                untils[k++] = b.until[j];
            }
        }
        blocked = n == 0 ? Blocked.NONE : new Blocked(ips, untils);
    }

    private static int indexOf(Blocked b, int ip) {
        for (int i = 0; i < b.ips.length; i++) {
            if (b.ips[i] == ip) {
                return i;
            }
        }
        return -1;
    }

    /** Whether a packet from {@code ip} may be processed (counted as dropped when not). */
    public boolean admits(int ip) {
        Blocked b = blocked;
        if (b.ips.length == 0) {
            return true;
        }
        int i = indexOf(b, ip);
        if (i < 0) {
            return true;
        }
        if (System.nanoTime() - b.until[i] >= 0) {
            unblock(ip);
            return true;
        }
        dropped.increment();
        return false;
    }

    /** Whether packets from {@code ip} are being dropped now. */
    public boolean isBlocked(int ip) {
        Blocked b = blocked;
        int i = indexOf(b, ip);
        return i >= 0 && System.nanoTime() - b.until[i] < 0;
    }

    /** Remote access errors made by {@code ip} since the device opened. */
    public long errors(int ip) {
        Peer p = peers.get(ip);
        if (p == null) {
            return 0;
        }
        synchronized (p) {
            return p.total;
        }
    }

    /** Packets dropped because their sender was blocked. */
    public long droppedPackets() {
        return dropped.sum();
    }
}
