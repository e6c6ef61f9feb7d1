/**
 * The runnable programs. Open: picocli reads and writes the commands' option fields reflectively. The providers
 * are not required: {@code dev.ibex.cm} uses {@code RdmaProvider}, so soft-roce and rdma-core on the module path
 * are bound as its service providers; logback is bound the same way as SLF4J's.
 */
open module dev.ibex.samples {
    requires dev.ibex.cm.reactive;
    requires dev.ibex.rsocket;
    requires dev.ibex.pubsub;
    requires dev.ibex.softroce;
    requires info.picocli;
    requires HdrHistogram;
}
