package dev.ibex.softroce.transport;


/**
 * The responder's R_Key check (rxe {@code check_rkey}): resolves the rkey of a remote request to the memory region
 * that holds the bytes, when the key grants the access there. A region's key must match exactly, belong to the QP's
 * PD, carry the right and cover the range; a window's key must be its current binding's, the window must serve this
 * QP (type 2), grant the right and cover the range itself — not just the region under it. A window stays entered
 * until {@link #leave()}, so invalidating it waits for the copy in progress.
 *
 * <p>Confined to one responder (its receive task); allocates nothing.
 */
final class RkeyCheck {
    private SoftMemoryWindow entered;

    /**
     * The region holding {@code [va, va + len)} if {@code rkey} grants {@code access} ({@link dev.ibex.cm.spi.Access}
     * bits) there to requests on {@code qp}; else {@code null}. Call {@link #leave()} after the copy.
     */
    SoftMemoryRegion enter(SoftQueuePair qp, int rkey, long va, long len, int access) {
        Object o = qp.device().memoryKey(rkey);
        if (o instanceof SoftMemoryRegion mr) {
            return mr.rkey() == rkey && mr.softPd() == qp.softPd() && mr.remoteValid()
                    && mr.check(va, len, access) == SoftMemoryRegion.OK ? mr : null;
        }
        if (o instanceof SoftMemoryWindow mw) {
            SoftMemoryRegion mr = mw.enter(rkey, qp, va, len, access);
            if (mr != null) {
                entered = mw;
            }
            return mr;
        }
        return null;
    }

    /** Ends the access {@link #enter} allowed (nothing for a region). */
    void leave() {
        SoftMemoryWindow w = entered;
        if (w != null) {
            entered = null;
            w.exit();
        }
    }
}
