package dev.ibex.bench.soak;

import java.util.List;

/**
 * The growth of a metric over cycles, per 1,000 cycles: the least-squares slope of its floor — the smallest value in
 * each run of {@value #GROUP} samples — so that what merely comes and goes (garbage between collections, connections in
 * their time-wait) does not read as growth while a leak, which raises the floor, does. Stateless.
 */
final class Slope {
    static final int GROUP = 4;

    private Slope() {}

    /** The slope of the floor of {@code m} over {@code samples}, per 1,000 cycles. */
    static double ofFloor(List<Sample> samples, Sample.Metric m) {
        List<Sample> floors = new java.util.ArrayList<>();
        for (int i = 0; i + GROUP <= samples.size(); i += GROUP) {
            List<Sample> g = samples.subList(i, i + GROUP);
            Sample low = g.stream().min(java.util.Comparator.comparingDouble(s -> s.value(m))).orElseThrow();
            long mid = (g.getFirst().cycles() + g.getLast().cycles()) / 2;
            floors.add(new Sample(mid, low.ibexResources(), low.poolBuffers(), low.poolInUse(), low.nmtCommittedKb(),
                    low.heapAfterGcKb(), low.threads(), low.fds(), low.rssKb()));
        }
        return perThousand(floors.size() >= 2 ? floors : samples, m);
    }

    /** The slope of {@code m} over {@code samples} per 1,000 cycles (0 with fewer than two samples). */
    static double perThousand(List<Sample> samples, Sample.Metric m) {
        int n = samples.size();
        if (n < 2) {
            return 0;
        }
        double mx = 0;
        double my = 0;
        for (Sample s : samples) {
            mx += s.cycles();
            my += s.value(m);
        }
        mx /= n;
        my /= n;
        double sxy = 0;
        double sxx = 0;
        for (Sample s : samples) {
            double dx = s.cycles() - mx;
            sxy += dx * (s.value(m) - my);
            sxx += dx * dx;
        }
        return sxx == 0 ? 0 : sxy / sxx * 1000;
    }
}
