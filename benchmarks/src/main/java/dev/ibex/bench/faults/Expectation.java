package dev.ibex.bench.faults;

import dev.ibex.cm.endpoint.ConnectionFailedException.Reason;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a matrix cell must show: the table of expected outcomes, one per (workload, fault), with the reason.
 *
 * @param outcome the kind of outcome
 * @param reasons for {@link Outcome#TYPED_ERROR}: the reasons a {@code ConnectionFailedException} may carry
 * @param bound how long after the fault the end may come ({@link Outcome#TYPED_ERROR}, {@link Outcome#DISCONNECTED})
 * @param why the reasoning, printed in the table
 */
public record Expectation(Outcome outcome, Set<Reason> reasons, Duration bound, String why) {

    /** The kinds of outcome. */
    public enum Outcome {
        /** Every unit delivered and verified exactly once, in order; no error. */
        EXACTLY_ONCE,
        /** The connection fails with a {@code ConnectionFailedException} of one of the reasons within the bound; */
        TYPED_ERROR,
        /** The connection ends in order (onDisconnected, no error) within the bound; */
        DISCONNECTED,
        /** UD: sent − received = injected drops, duplicates received = injected duplicates, nothing corrupt. */
        COUNTED_LOSS,
        /** UD: the sender keeps no state about its peer, so every send completes and nothing fails. */
        SENDER_UNAFFECTED
    }

    /**
     * The expected outcome of {@code w} under {@code f} when a silent peer is noticed within {@code deadPeerBound}
     * (the transport's (retry_cnt + 1) local ACK timeouts with requests outstanding, the keepalive's interval ×
     * (count + 1) without) and the CM answers within {@code cmBound}.
     */
    public static Expectation of(Workload w, Fault f, Duration deadPeerBound, Duration cmBound) {
        // a typed end may come up to a bound after the fault (the last retransmission's timeout, or the last probe's),
        // plus time for the loops of a loaded machine to notice and report it
        Duration deadPeer = deadPeerBound.multipliedBy(2).plusSeconds(3);
        Duration orderly = cmBound.plusSeconds(3);
        if (w.datagram()) {
            return switch (f) {
                case KILL_PEER, CLOSE_OTHER_SIDE, DEVICE_CLOSED -> new Expectation(Outcome.SENDER_UNAFFECTED,
                        Set.of(), deadPeer, "UD keeps no state about the receiver: sends complete, nothing to report");
                default -> new Expectation(Outcome.COUNTED_LOSS, Set.of(), deadPeer, "UD does not recover loss: "
                        + "every datagram is received once, dropped by the fault, or duplicated by it — counted");
            };
        }
        return switch (f) {
            case DROP_1, DROP_10, REORDER, DUPLICATE, DELAY -> new Expectation(Outcome.EXACTLY_ONCE, Set.of(),
                    Duration.ZERO, "RC recovers loss, order and duplicates (PSNs, go-back-N, duplicate detection; "
                            + "atomics replayed, never re-executed)");
            case PATH_DOWN_UP -> new Expectation(Outcome.EXACTLY_ONCE, Set.of(), Duration.ZERO,
                    "the outage is shorter than the retry bound: retransmission resumes the stream");
            case PATH_DOWN -> new Expectation(Outcome.TYPED_ERROR, EnumSet.of(Reason.PEER_UNRESPONSIVE,
                    Reason.KEEPALIVE), deadPeer, "requests outstanding: retries exhausted (PEER_UNRESPONSIVE); all "
                            + "acknowledged (an echo awaited): the keepalive's probes go unanswered (KEEPALIVE)");
            case KILL_PEER -> new Expectation(Outcome.TYPED_ERROR, EnumSet.of(Reason.PEER_UNRESPONSIVE,
                    Reason.KEEPALIVE), deadPeer, "soft-roce has no kernel to speak for a dead process: the "
                            + "requester's retries or the keepalive's probes run out");
            case CLOSE_OTHER_SIDE -> new Expectation(Outcome.DISCONNECTED, Set.of(), orderly,
                    "the peer's DREQ: onDisconnected, outstanding work flushed, no error");
            case DEVICE_CLOSED -> new Expectation(Outcome.DISCONNECTED, Set.of(), orderly,
                    "closing a device destroys its CM ids, which says goodbye with a DREQ (as a kernel does for a "
                            + "process that exits)");
        };
    }

    /** One line for the table. */
    public String describe() {
        return switch (outcome) {
            case EXACTLY_ONCE -> "exactly once, in order";
            case TYPED_ERROR -> "typed error " + String.join("/", reasons.stream().map(Enum::name).sorted().toList())
                    + " ≤ " + seconds(bound);
            case DISCONNECTED -> "disconnected ≤ " + seconds(bound);
            case COUNTED_LOSS -> "counted loss";
            case SENDER_UNAFFECTED -> "sender unaffected";
        };
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
