package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.check;
import static dev.ibex.verbs.ffi.IbVerbs.checkPort;
import static dev.ibex.verbs.ffi.IbVerbs.intResult;
import static dev.ibex.verbs.ffi.IbVerbs.pointerResult;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ibex.verbs.ffi.struct.IbvAh;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Address handles, the destination of a UD send: {@code ibv_create_ah} and {@code ibv_destroy_ah}, and the address to
 * reply to the sender of a UD receive ({@code ibv_init_ah_from_wc}, {@code ibv_create_ah_from_wc}).
 */
public final class AddressHandles {
    private AddressHandles() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle CREATE_AH = D.errno("ibv_create_ah",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvAh.LAYOUT), PTR, PTR));
        static final MethodHandle DESTROY_AH = D.errno("ibv_destroy_ah", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle INIT_AH_FROM_WC = D.errno("ibv_init_ah_from_wc",
                FunctionDescriptor.of(JAVA_INT, PTR, JAVA_BYTE, PTR, PTR, PTR));
        static final MethodHandle CREATE_AH_FROM_WC = D.errno("ibv_create_ah_from_wc",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvAh.LAYOUT), PTR, PTR, PTR, JAVA_BYTE));
    }

    /**
     * {@code ibv_create_ah} from a {@code struct ibv_ah_attr}.
     *
     * @param pd the protection domain
     * @param ahAttr the {@code struct ibv_ah_attr}
     * @return the {@code struct ibv_ah}
     */
    public static MemorySegment createAh(MemorySegment pd, MemorySegment ahAttr) {
        return pointerResult("ibv_create_ah", H.CREATE_AH, pd, ahAttr);
    }

    /**
     * {@code ibv_destroy_ah}: only after every WR that used it has completed.
     *
     * @param ah what {@link #createAh} or {@link #createAhFromWc} returned
     */
    public static void destroyAh(MemorySegment ah) {
        intResult("ibv_destroy_ah", H.DESTROY_AH, ah);
    }

    /**
     * {@code ibv_init_ah_from_wc}: the reply address vector for a UD receive ({@code grh} may be NULL).
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param port the port the receive arrived on, from 1
     * @param wc the receive's {@code struct ibv_wc}
     * @param grh the GRH at the start of the receive buffer
     * @param ahAttr the {@code struct ibv_ah_attr} to fill
     */
    public static void initAhFromWc(MemorySegment context, int port, MemorySegment wc, MemorySegment grh, MemorySegment ahAttr) {
        Pointers.require(context, "context", "ibv_init_ah_from_wc");
        Pointers.require(wc, "wc", "ibv_init_ah_from_wc");
        Pointers.require(ahAttr, "ah_attr", "ibv_init_ah_from_wc");
        checkPort(port);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.INIT_AH_FROM_WC.invokeExact(cs.capture, context, (byte) port, wc, grh, ahAttr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_init_ah_from_wc", rc, cs);
    }

    /**
     * {@code ibv_create_ah_from_wc}: an AH to reply to the sender of a UD receive.
     *
     * @param pd the protection domain
     * @param wc the receive's {@code struct ibv_wc}
     * @param grh the GRH at the start of the receive buffer, or NULL
     * @param port the port the receive arrived on, from 1
     * @return the {@code struct ibv_ah}
     */
    public static MemorySegment createAhFromWc(MemorySegment pd, MemorySegment wc, MemorySegment grh, int port) {
        Pointers.require(pd, "pd", "ibv_create_ah_from_wc");
        Pointers.require(wc, "wc", "ibv_create_ah_from_wc");
        checkPort(port);
        CallState cs = CallState.current();
        MemorySegment ah;
        try {
            ah = (MemorySegment) H.CREATE_AH_FROM_WC.invokeExact(cs.capture, pd, wc, grh, (byte) port);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (ah.address() == 0) {
            throw RdmaErrors.failure("ibv_create_ah_from_wc", cs.errno());
        }
        return ah;
    }
}
