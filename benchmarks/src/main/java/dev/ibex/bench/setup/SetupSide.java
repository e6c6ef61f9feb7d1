package dev.ibex.bench.setup;

import org.HdrHistogram.Histogram;

/**
 * One way of setting up connections between two loopback addresses, measured two ways: one connection at a time
 * (the latency from the connect call to the client's "established") and many with a bounded number in flight (the
 * rate). Every connection a run made is closed before the run returns, so runs are independent.
 *
 * <p><b>Threading.</b> One driving thread calls the runs, one at a time.
 */
public interface SetupSide extends AutoCloseable {

    /**
     * Sets up {@code n} connections one after another, each closed before the next starts.
     *
     * @param n the connections to set up
     * @return per connection the nanoseconds from its connect to the client's "established"
     */
    Histogram sequential(int n);

    /**
     * Sets up {@code n} connections with at most {@code inFlight} not yet established at any time (a new connect
     * starts as one is established), keeps them open until the last is established, then closes them all.
     *
     * @param n the connections to set up
     * @param inFlight the connects in flight at most
     * @return the nanoseconds from the first connect to the last "established"
     */
    long concurrent(int n, int inFlight);

    /** Releases the side's sockets, threads or loops. */
    @Override
    void close();
}
