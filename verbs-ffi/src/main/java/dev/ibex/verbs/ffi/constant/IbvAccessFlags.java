package dev.ibex.verbs.ffi.constant;

/**
 * Memory and QP access flags. Remote write or atomic access requires local write.
 *
 * <p>Values of {@code enum ibv_access_flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvAccessFlags {
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    public static final int IBV_ACCESS_MW_BIND = 1 << 4;
    public static final int IBV_ACCESS_ZERO_BASED = 1 << 5;
    public static final int IBV_ACCESS_ON_DEMAND = 1 << 6;
    public static final int IBV_ACCESS_HUGETLB = 1 << 7;
    public static final int IBV_ACCESS_RELAXED_ORDERING = 1 << 20;
    public static final int IBV_ACCESS_OPTIONAL_RANGE = 0x3FF00000;

    private IbvAccessFlags() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(IbvAccessFlags.class, mask);
    }
}
