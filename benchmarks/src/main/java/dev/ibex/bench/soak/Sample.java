package dev.ibex.bench.soak;

/**
 * What the soak measures after a number of cycles.
 *
 * @param cycles cycles completed
 * @param ibexResources live Ibex resources of both fabrics (ids, QPs, CQs, MRs … — the loops' own included)
 * @param poolBuffers registered buffers both loops' pools have allocated
 * @param poolInUse of those, held or lent
 * @param nmtCommittedKb the JVM's committed native memory (NMT summary), -1 when NMT is off
 * @param heapAfterGcKb heap used after a full GC
 * @param threads live threads
 * @param fds open file descriptors, -1 when unknown
 * @param rssKb the process's resident set (for information)
 */
public record Sample(long cycles, long ibexResources, long poolBuffers, long poolInUse, long nmtCommittedKb,
        long heapAfterGcKb, long threads, long fds, long rssKb) {

    /** The value of metric {@code m}. */
    public double value(Metric m) {
        return switch (m) {
            case IBEX_RESOURCES -> ibexResources;
            case POOL_BUFFERS -> poolBuffers;
            case POOL_IN_USE -> poolInUse;
            case NMT_COMMITTED_KB -> nmtCommittedKb;
            case HEAP_AFTER_GC_KB -> heapAfterGcKb;
            case THREADS -> threads;
            case FDS -> fds;
            case RSS_KB -> rssKb;
        };
    }

    /** The metrics, each with the largest slope per 1,000 cycles that is still noise (0: report only). */
    public enum Metric {
        IBEX_RESOURCES("Ibex resources (ids, QPs, CQs, MRs …)", 0.5),
        POOL_BUFFERS("registered buffers allocated", 8),
        POOL_IN_USE("registered buffers in use", 0.5),
        NMT_COMMITTED_KB("NMT committed (KiB)", 2048),
        HEAP_AFTER_GC_KB("heap after GC (KiB)", 512),
        THREADS("live threads", 0.5),
        FDS("open file descriptors", 0.5),
        RSS_KB("RSS (KiB, for information)", 0);

        private final String title;
        private final double noise;

        Metric(String title, double noise) {
            this.title = title;
            this.noise = noise;
        }

        public String title() {
            return title;
        }

        /** The largest slope per 1,000 cycles that is not a leak; 0 for a metric reported only. */
        public double noise() {
            return noise;
        }
    }
}
