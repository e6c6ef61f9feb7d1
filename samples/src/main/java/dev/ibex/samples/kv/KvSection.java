package dev.ibex.samples.kv;

import dev.ibex.samples.tour.TourContext;
import dev.ibex.samples.tour.TourSection;

/** The tour's RSocket section: {@link KvTour}, the key-value service over RSocket over Ibex. */
public final class KvSection implements TourSection {
    @Override
    public String name() {
        return "rsocket";
    }

    @Override
    public String title() {
        return "RSocket over Ibex: a key-value service, request-response and request-stream";
    }

    @Override
    public void run(TourContext tour) {
        KvTour.run(tour.out(), tour.step(), tour.requests());
    }
}
