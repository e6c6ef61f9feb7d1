package dev.ibex.softroce.net;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * Fault rules for one {@link Direction} of a {@link FaultInjector}. All rules are off initially; setters
 * take effect for the next datagram and may be called from any thread. Each datagram gets at most one
 * fault, checked in this order: drop predicate, drop probability, delay, reorder, duplicate.
 *
 * <p>Probabilistic rules draw from this direction's own generator seeded from the injector's seed, so a
 * test that sends the same datagrams in the same order sees the same faults.
 */
public final class FaultRules {
    /** What happens to one datagram. */
    enum Verdict { PASS, DROP, DELAY, HOLD, DUPLICATE }

    private final FaultInjector owner;
    private final long seed;
    private RandomGenerator random;
    private volatile DatagramPredicate dropIf;
    private volatile double dropProbability;
    private volatile double duplicateProbability;
    private volatile double reorderProbability;
    private volatile long reorderMaxHoldNanos = Duration.ofMillis(50).toNanos();
    private volatile long delayNanos;

    FaultRules(FaultInjector owner, long seed) {
        this.owner = owner;
        this.seed = seed;
        this.random = RandomGeneratorFactory.<RandomGenerator>of("L64X128MixRandom").create(seed);
    }

    /**
     * Drops each datagram with {@code probability} (0 turns the rule off).
     *
     * @param probability 0 to 1
     * @return these rules
     * @throws IllegalArgumentException when {@code probability} is outside 0 to 1
     */
    public FaultRules drop(double probability) {
        dropProbability = checkProbability(probability);
        owner.changed();
        return this;
    }

    /**
     * Drops every datagram the predicate selects ({@code null} turns the rule off).
     *
     * @param predicate selects the datagrams to drop, or {@code null}
     * @return these rules
     */
    public FaultRules dropIf(DatagramPredicate predicate) {
        dropIf = predicate;
        owner.changed();
        return this;
    }

    /**
     * Delivers (or sends) each datagram twice with {@code probability}.
     *
     * @param probability 0 to 1 (0 turns the rule off)
     * @return these rules
     * @throws IllegalArgumentException when {@code probability} is outside 0 to 1
     */
    public FaultRules duplicate(double probability) {
        duplicateProbability = checkProbability(probability);
        owner.changed();
        return this;
    }

    /**
     * Holds a datagram back with {@code probability} and releases it right after the next datagram in this
     * direction, or after {@code maxHold} if none comes — so it arrives out of order.
     *
     * @param probability 0 to 1 (0 turns the rule off)
     * @param maxHold     the longest a datagram is held back, positive
     * @return these rules
     * @throws IllegalArgumentException when {@code probability} is outside 0 to 1 or {@code maxHold} is not positive
     */
    public FaultRules reorder(double probability, Duration maxHold) {
        if (maxHold.isNegative() || maxHold.isZero()) {
            throw new IllegalArgumentException("maxHold must be positive, not " + maxHold);
        }
        reorderMaxHoldNanos = maxHold.toNanos();
        reorderProbability = checkProbability(probability);
        owner.changed();
        return this;
    }

    /**
     * Delays every datagram by {@code delay} ({@link Duration#ZERO} turns the rule off).
     *
     * @param delay how long each datagram is held, not negative
     * @return these rules
     * @throws IllegalArgumentException when {@code delay} is negative
     */
    public FaultRules delay(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("negative delay " + delay);
        }
        delayNanos = delay.toNanos();
        owner.changed();
        return this;
    }

    /**
     * Turns every rule of this direction off and reseeds its generator.
     *
     * @return these rules
     */
    public FaultRules clear() {
        dropIf = null;
        dropProbability = 0;
        duplicateProbability = 0;
        reorderProbability = 0;
        delayNanos = 0;
        synchronized (this) {
            random = RandomGeneratorFactory.<RandomGenerator>of("L64X128MixRandom").create(seed);
        }
        owner.changed();
        return this;
    }

    boolean isActive() {
        return dropIf != null || dropProbability > 0 || duplicateProbability > 0 || reorderProbability > 0
                || delayNanos > 0;
    }

    long delayNanos() {
        return delayNanos;
    }

    long reorderMaxHoldNanos() {
        return reorderMaxHoldNanos;
    }

    Verdict decide(int srcIp, int srcPort, int dstIp, int dstPort, MemorySegment payload, int length) {
        DatagramPredicate p = dropIf;
        if (p != null && p.test(srcIp, srcPort, dstIp, dstPort, payload, length)) {
            return Verdict.DROP;
        }
        if (dropProbability > 0 && chance(dropProbability)) {
            return Verdict.DROP;
        }
        if (delayNanos > 0) {
            return Verdict.DELAY;
        }
        if (reorderProbability > 0 && chance(reorderProbability)) {
            return Verdict.HOLD;
        }
        if (duplicateProbability > 0 && chance(duplicateProbability)) {
            return Verdict.DUPLICATE;
        }
        return Verdict.PASS;
    }

    private synchronized boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    private static double checkProbability(double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("probability " + p + " is outside [0, 1]");
        }
        return p;
    }
}
