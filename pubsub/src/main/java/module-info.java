/** Topics over UD multicast: numbered messages, heartbeats, loss/late/duplicate counts per subscriber. */
module dev.ibex.pubsub {
    requires transitive dev.ibex.cm.reactive;
    requires org.slf4j;

    exports dev.ibex.pubsub;
}
