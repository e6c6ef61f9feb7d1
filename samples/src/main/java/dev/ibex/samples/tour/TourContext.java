package dev.ibex.samples.tour;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * What a {@link TourSection} gets: where to print (each line indented under the section's heading), the bound on
 * each step, and the tour's knobs (message counts), so tests can run it small.
 *
 * @param out      the tour's output
 * @param step     how long one step may take
 * @param pings    echo: measured ping-pong round trips
 * @param size     echo: ping and stream message size
 * @param stream   echo: messages in the echoed stream
 * @param writes   echo: RDMA WRITEs
 * @param writeSize echo: RDMA WRITE size
 * @param requests rsocket: measured request-response round trips
 * @param messages pub/sub: messages to publish
 * @param rate     pub/sub: publish rate limit, messages per second
 */
public record TourContext(PrintStream out, Duration step, int pings, int size, int stream, int writes, int writeSize,
        int requests, int messages, double rate) {

    /** Prints one line of the section, indented. */
    public void say(String format, Object... args) {
        out.println("  " + String.format(Locale.ROOT, format, args));
    }
}
