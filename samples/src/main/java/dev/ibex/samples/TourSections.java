package dev.ibex.samples;

import dev.ibex.samples.demo.EchoSection;
import dev.ibex.samples.failover.FailoverSection;
import dev.ibex.samples.kv.KvSection;
import dev.ibex.samples.pubsub.PubSubSection;
import dev.ibex.samples.tour.TourSection;
import java.util.List;

/**
 * The sections of the tour, in the order they run. To add one (RSocket request-response, APM failover, …):
 * implement {@link TourSection} next to your sample and add an instance here.
 */
public final class TourSections {
    /** Every section, in tour order. */
    public static final List<TourSection> ALL = List.of(
            new EchoSection(),
            new KvSection(),
            new PubSubSection(),
            new FailoverSection());

    private TourSections() {}
}
