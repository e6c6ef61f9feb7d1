package dev.ibex.softroce.net;

import dev.ibex.softroce.wire.Ipv4;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * Test faults for one or more {@link SoftPort}s: per-direction rules ({@link #onSend()},
 * {@link #onReceive()}) and black holes for (local IP, remote IP) pairs. Off by default and cheap when off
 * (one volatile read per datagram). Configurable at any time from any thread; seeded, so runs repeat.
 *
 * <p>A black hole for (local, remote) drops everything a port with address {@code local} sends to
 * {@code remote} and everything it receives from {@code remote} — the path is dead in both directions, as
 * when a link fails. Share one injector between ports to describe a whole fabric's faults.
 */
public final class FaultInjector {
    private final FaultRules send;
    private final FaultRules receive;
    private volatile long[] blackHoles = new long[0]; // sorted (local << 32 | remote) keys, copy-on-write
    private volatile boolean active;
    private final LongAdder dropped = new LongAdder(), blackHoled = new LongAdder(), duplicated = new LongAdder(),
            reordered = new LongAdder(), delayed = new LongAdder();

    /**
     * Counts of faults applied so far.
     *
     * @param dropped    datagrams dropped by a drop rule (predicate or probability)
     * @param blackHoled datagrams dropped by a black hole
     * @param duplicated datagrams sent or delivered twice
     * @param reordered  datagrams held back to arrive after a later one
     * @param delayed    datagrams delayed
     */
    public record Counts(long dropped, long blackHoled, long duplicated, long reordered, long delayed) {
    }

    /**
     * An injector whose probabilistic rules draw from generators seeded with {@code seed}.
     *
     * @param seed the seed; the same seed and the same datagrams give the same faults
     */
    public FaultInjector(long seed) {
        this.send = new FaultRules(this, seed);
        this.receive = new FaultRules(this, seed ^ 0x5DEE_CE66_DL);
    }

    /**
     * Rules for datagrams a port sends.
     *
     * @return the send direction's rules
     */
    public FaultRules onSend() {
        return send;
    }

    /**
     * Rules for datagrams a port receives.
     *
     * @return the receive direction's rules
     */
    public FaultRules onReceive() {
        return receive;
    }

    /**
     * The rules of {@code direction}.
     *
     * @param direction send or receive
     * @return that direction's rules
     */
    public FaultRules rules(Direction direction) {
        return direction == Direction.SEND ? send : receive;
    }

    /**
     * Cuts the path between {@code localIp} and {@code remoteIp} in both directions.
     *
     * @param localIp  a port's IPv4 address as a big-endian int
     * @param remoteIp the peer's IPv4 address as a big-endian int
     * @return this injector
     */
    public synchronized FaultInjector blackHole(int localIp, int remoteIp) {
        long key = key(localIp, remoteIp);
        if (Arrays.binarySearch(blackHoles, key) < 0) {
            long[] next = Arrays.copyOf(blackHoles, blackHoles.length + 1);
            next[next.length - 1] = key;
            Arrays.sort(next);
            blackHoles = next;
        }
        changed();
        return this;
    }

    /**
     * Restores the path between {@code localIp} and {@code remoteIp}.
     *
     * @param localIp  a port's IPv4 address as a big-endian int
     * @param remoteIp the peer's IPv4 address as a big-endian int
     * @return this injector
     */
    public synchronized FaultInjector heal(int localIp, int remoteIp) {
        long key = key(localIp, remoteIp);
        blackHoles = Arrays.stream(blackHoles).filter(k -> k != key).toArray();
        changed();
        return this;
    }

    /**
     * Whether the path between {@code localIp} and {@code remoteIp} is cut.
     *
     * @param localIp  a port's IPv4 address as a big-endian int
     * @param remoteIp the peer's IPv4 address as a big-endian int
     * @return {@code true} while the path is black-holed
     */
    public boolean isBlackHoled(int localIp, int remoteIp) {
        long[] holes = blackHoles;
        return holes.length != 0 && Arrays.binarySearch(holes, key(localIp, remoteIp)) >= 0;
    }

    /**
     * Turns every rule off, heals every path and reseeds the generators (counts are kept).
     *
     * @return this injector
     */
    public synchronized FaultInjector reset() {
        blackHoles = new long[0];
        send.clear();
        receive.clear();
        return this;
    }

    /**
     * Faults applied so far.
     *
     * @return a snapshot of the counts
     */
    public Counts counts() {
        return new Counts(dropped.sum(), blackHoled.sum(), duplicated.sum(), reordered.sum(), delayed.sum());
    }

    /** Whether any rule or black hole is set; the ports' fast path. */
    boolean isActive() {
        return active;
    }

    void changed() {
        active = blackHoles.length != 0 || send.isActive() || receive.isActive();
    }

    void countDropped() {
        dropped.increment();
    }

    void countBlackHoled() {
        blackHoled.increment();
    }

    void countDuplicated() {
        duplicated.increment();
    }

    void countReordered() {
        reordered.increment();
    }

    void countDelayed() {
        delayed.increment();
    }

    private static long key(int localIp, int remoteIp) {
        return (long) localIp << 32 | (remoteIp & 0xFFFF_FFFFL);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("FaultInjector[");
        for (long k : blackHoles) {
            sb.append("blackhole ").append(Ipv4.toString((int) (k >>> 32))).append("<->")
                    .append(Ipv4.toString((int) k)).append(' ');
        }
        return sb.append(counts()).append(']').toString();
    }
}
