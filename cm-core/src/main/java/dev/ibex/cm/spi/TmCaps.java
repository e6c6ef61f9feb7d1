package dev.ibex.cm.spi;

/**
 * {@code struct ibv_tm_caps}: what a device's tag matching can do, from {@code ibv_query_device_ex}. A device
 * without tag matching reports {@link #NONE} ({@code max_num_tags} 0), as Linux rxe does.
 *
 * @param maxRndvHdrSize {@code max_rndv_hdr_size}: the largest rendezvous request (TMH, RVH and metadata) in bytes
 * @param maxNumTags {@code max_num_tags}: tagged buffers a TM-SRQ's matching list holds
 * @param flags {@code flags}: {@link #CAP_RC} when tag matching works on RC QPs
 * @param maxOps {@code max_ops}: list operations outstanding at once (per {@code ibv_post_srq_ops} call here)
 * @param maxSge {@code max_sge}: scatter entries per tagged buffer
 */
public record TmCaps(int maxRndvHdrSize, int maxNumTags, int flags, int maxOps, int maxSge) {
    /** {@code IBV_TM_CAP_RC}: tag matching on RC transport. */
    public static final int CAP_RC = 1;

    /** What a device without tag matching reports. */
    public static final TmCaps NONE = new TmCaps(0, 0, 0, 0, 0);

    /** {@return whether the device can create a tag-matching SRQ for RC QPs} */
    public boolean supported() {
        return maxNumTags > 0 && (flags & CAP_RC) != 0;
    }
}
