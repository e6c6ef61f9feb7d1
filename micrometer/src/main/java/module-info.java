/**
 * Micrometer for Ibex: {@code metrics(true)} on {@code RdmaServer} and {@code RdmaClient} records into Micrometer's
 * global registry (this module provides the {@code RdmaMetricsRecorderProvider} it looks for), and
 * {@link dev.ibex.micrometer.MicrometerRdmaMetricsRecorder} records into any registry. The providers' counters
 * become {@code FunctionCounter}s read at scrape time. {@code RdmaDatagram} and {@code RdmaMulticast} get meters the
 * same way, and connects and accepted connections become Micrometer {@code Observation}s under the subscriber's
 * ({@link dev.ibex.micrometer.RdmaObservations}).
 */
module dev.ibex.micrometer {
    requires transitive dev.ibex.cm.reactive;
    requires transitive micrometer.core;
    requires transitive micrometer.observation;
    requires org.slf4j;

    exports dev.ibex.micrometer;

    provides dev.ibex.cm.reactive.RdmaMetricsRecorderProvider with dev.ibex.micrometer.MicrometerRecorderProvider;
}
