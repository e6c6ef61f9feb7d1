package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_tm_cap}: the tag-matching sizes asked for a TM-SRQ, inside {@code ibv_srq_init_attr_ex}. */
public final class IbvTmCap {
    /** {@code struct ibv_tm_cap}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("max_num_tags"),
            U32.withName("max_ops"))
            .withName("ibv_tm_cap");
    /** {@code sizeof(struct ibv_tm_cap)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private IbvTmCap() {
    }
}
