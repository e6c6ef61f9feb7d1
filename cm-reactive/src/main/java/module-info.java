/** Reactor's face of Ibex: {@code RdmaServer}, {@code RdmaClient}, {@code RdmaConnection}, datagrams, multicast. */
module dev.ibex.cm.reactive {
    requires transitive dev.ibex.cm;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires org.slf4j;

    exports dev.ibex.cm.reactive;

    uses dev.ibex.cm.reactive.RdmaMetricsRecorderProvider;
}
