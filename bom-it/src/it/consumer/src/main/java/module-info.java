/** A user's module: needs only cm-reactive; the providers are bound as services of {@code dev.ibex.cm}. */
module dev.ibex.it.consumer {
    requires dev.ibex.cm.reactive;

    exports dev.ibex.it.consumer;
}
