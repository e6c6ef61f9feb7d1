package dev.ibex.pubsub;

/**
 * A snapshot of one subscriber's counts for its topic, kept across leave and re-join ({@link TopicSubscriber#stats()}).
 * Loss is counted by sequence number, so it covers whatever lost a message: the network, a NIC without a posted
 * receive, a switch. What the subscriber itself released for want of demand is counted apart ({@code overruns}).
 *
 * @param topic           the topic's name
 * @param publisher       what the subscriber knows of the publisher now
 * @param epoch           the publisher epoch followed (0: none heard)
 * @param highest         the highest sequence number known to have been sent in that epoch
 * @param received        messages delivered (or offered: see {@code overruns}) in sequence order or late
 * @param lost            numbers missing while joined: never arrived (a late arrival takes its number back out)
 * @param outOfOrder      messages that arrived after a later number (and were delivered)
 * @param duplicates      messages that arrived again (not delivered twice)
 * @param stale           frames too old to place: before the subscriber's baseline, more than 4,096 numbers
 *                        behind, or from an older epoch (not delivered)
 * @param missedWhileAway numbers sent while the subscriber had left the group (not loss: it was not listening)
 * @param overruns        messages released without delivery because the consumer had no demand and the queue was
 *                        full
 * @param heartbeats      heartbeats (and close frames) heard
 * @param heartbeatsLost  heartbeats missing by their own numbering
 * @param restarts        new publisher epochs seen after the first
 * @param silences        times the publisher fell silent
 * @param foreign         frames of other topics on the same group, and datagrams that are not pub/sub frames
 * @param joins           successful joins
 */
public record SubscriberStats(String topic, PublisherState publisher, long epoch, long highest, long received,
        long lost, long outOfOrder, long duplicates, long stale, long missedWhileAway, long overruns,
        long heartbeats, long heartbeatsLost, long restarts, long silences, long foreign, long joins) {

    /**
     * Lost as a fraction of what was expected while joined (received + lost), 0 when nothing was.
     *
     * @return {@code lost / (received + lost)}, from 0 to 1
     */
    public double lossRatio() {
        long expected = received + lost;
        return expected == 0 ? 0 : (double) lost / expected;
    }

    @Override
    public String toString() {
        return topic + ": " + publisher + ", received " + received + ", lost " + lost + ", out of order "
                + outOfOrder + ", duplicates " + duplicates + ", missed while away " + missedWhileAway
                + ", overruns " + overruns + ", heartbeats " + heartbeats + " (lost " + heartbeatsLost + ")"
                + (restarts > 0 ? ", restarts " + restarts : "") + (silences > 0 ? ", silences " + silences : "")
                + (stale > 0 ? ", stale " + stale : "") + (foreign > 0 ? ", foreign " + foreign : "")
                + ", joins " + joins;
    }
}
