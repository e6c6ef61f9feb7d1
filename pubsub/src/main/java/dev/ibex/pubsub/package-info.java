/**
 * Publish/subscribe over UD multicast: topics, one publisher per topic, a {@code Flux} of messages per subscriber,
 * and every loss counted.
 *
 * <h2>Topics and groups</h2>
 * A topic is a name; {@link dev.ibex.pubsub.TopicGroups} maps it onto an IPv4 multicast group — an explicit group
 * per topic, else a hash of the name into a range (default {@code 239.192.0.0/20}, 4,096 groups). A publisher joins
 * its topic's group send-only and a subscriber joins it as a full member, each with a UD endpoint of its own
 * ({@code RdmaMulticast}), so many topics per process are many memberships; topics that hash onto the same group
 * share its traffic and are told apart by the 32-bit topic id in every frame (the other topic's frames are counted
 * as {@code foreign} and dropped). Publishers and subscribers must use the same mapping.
 *
 * <h2>Frames</h2>
 * Every datagram starts with a 24-byte header (magic, version, kind, topic id, publisher epoch, sequence number;
 * see {@code FrameHeader}), so a message carries at most the path MTU less 24 bytes
 * ({@link dev.ibex.pubsub.TopicPublisher#maxPayload()}, checked before posting:
 * {@link dev.ibex.pubsub.PayloadTooLargeException}). DATA frames are numbered from 1 per epoch in the order they
 * are posted. A publisher sends a HEARTBEAT (the last number sent, its interval, the heartbeat's own number) when
 * it opens and then every interval (default 100 ms), and a CLOSE frame when it closes. The epoch is the publisher's
 * start time in ns since 1970: a new epoch is a restart.
 *
 * <h2>What a subscriber counts</h2>
 * By sequence number, from the first frame it hears after joining (a heartbeat's "last sent", so nothing after it
 * escapes the count; a subscriber that joins before the publisher opens counts from 1): {@code lost} (never
 * arrived — the network, a NIC without a posted receive, anything; a heartbeat reveals lost tail messages within
 * one interval), {@code outOfOrder} (late, delivered, no longer lost), {@code duplicates} (not delivered twice),
 * {@code stale}, and {@code missedWhileAway} (sent while it had left). What it released because its consumer had no
 * demand is {@code overruns}, apart. A publisher that stops without closing is {@code SILENT} after 5 of its
 * intervals without a frame; a re-join that hears nothing says so the same way ({@code SILENT}, epoch 0) instead of
 * waiting quietly. {@link dev.ibex.pubsub.SubscriberStats} and {@link dev.ibex.pubsub.TopicEvent} carry it all, and
 * survive leave and re-join.
 *
 * <h2>Threads and memory</h2>
 * A publisher and a subscriber each live on one event loop (every signal is emitted there; never block in it). A
 * message's payload is the registered receive buffer, lent for {@code onNext} ({@link dev.ibex.pubsub.TopicMessage}
 * ); a publisher writes header and payload straight into the registered send buffer (one copy of the payload, as
 * for any Ibex send).
 */
package dev.ibex.pubsub;
