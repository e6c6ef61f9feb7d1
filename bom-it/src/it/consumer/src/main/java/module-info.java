/**
 * A user's module: needs cm-reactive, and ibex-micrometer for its metrics; the providers are bound as services of
 * {@code dev.ibex.cm}, the Micrometer recorder as a service of {@code dev.ibex.cm.reactive}.
 */
module dev.ibex.it.consumer {
    requires dev.ibex.cm.reactive;
    requires dev.ibex.micrometer;

    exports dev.ibex.it.consumer;
}
