/**
 * Micrometer for Ibex: {@code metrics(true)} on {@code RdmaServer} and {@code RdmaClient} records into Micrometer's
 * global registry (this module provides the {@code RdmaMetricsRecorderProvider} it looks for), and
 * {@link dev.ibex.micrometer.MicrometerRdmaMetricsRecorder} records into any registry. The providers' counters
 * become {@code FunctionCounter}s read at scrape time.
 */
module dev.ibex.micrometer {
    requires transitive dev.ibex.cm.reactive;
    requires transitive micrometer.core;
    requires org.slf4j;

    exports dev.ibex.micrometer;

    provides dev.ibex.cm.reactive.RdmaMetricsRecorderProvider with dev.ibex.micrometer.MicrometerRecorderProvider;
}
