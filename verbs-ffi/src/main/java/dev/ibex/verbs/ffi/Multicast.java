package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.check;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** Multicast on a UD QP: {@code ibv_attach_mcast} and {@code ibv_detach_mcast} join and leave a group. */
public final class Multicast {
    private Multicast() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle ATTACH_MCAST = D.errno("ibv_attach_mcast", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_SHORT));
        static final MethodHandle DETACH_MCAST = D.errno("ibv_detach_mcast", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_SHORT));
    }

    /**
     * {@code ibv_attach_mcast}: attach a UD QP to multicast group {@code gid}/{@code lid}.
     *
     * @param qp the UD QP
     * @param gid the group's 16-byte GID
     * @param lid the group's LID, 0 to 0xFFFF
     */
    public static void attachMcast(MemorySegment qp, MemorySegment gid, int lid) {
        mcast("ibv_attach_mcast", H.ATTACH_MCAST, qp, gid, lid);
    }

    /**
     * {@code ibv_detach_mcast}.
     *
     * @param qp the UD QP
     * @param gid the group's 16-byte GID
     * @param lid the group's LID, 0 to 0xFFFF
     */
    public static void detachMcast(MemorySegment qp, MemorySegment gid, int lid) {
        mcast("ibv_detach_mcast", H.DETACH_MCAST, qp, gid, lid);
    }

    private static void mcast(String verb, MethodHandle h, MemorySegment qp, MemorySegment gid, int lid) {
        Pointers.require(qp, "qp", verb);
        Pointers.require(gid, "gid", verb);
        if (lid < 0 || lid > 0xFFFF) {
            throw new IllegalArgumentException("LID out of range: " + lid);
        }
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) h.invokeExact(cs.capture, qp, gid, (short) lid);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check(verb, rc, cs);
    }
}
