package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The names libibverbs gives its enum values, for logs and messages: {@code ibv_event_type_str},
 * {@code ibv_wc_status_str}, {@code ibv_port_state_str} and {@code ibv_node_type_str} (rdma-core's enum_strs.c).
 */
public final class EnumStrings {
    private EnumStrings() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle EVENT_TYPE_STR = D.plain("ibv_event_type_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle WC_STATUS_STR = D.plain("ibv_wc_status_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle PORT_STATE_STR = D.plain("ibv_port_state_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle NODE_TYPE_STR = D.plain("ibv_node_type_str", FunctionDescriptor.of(PTR, JAVA_INT));
    }

    /**
     * {@code ibv_event_type_str}.
     *
     * @param eventType an {@code IbvEventType} value
     * @return its name, e.g. "path migrated"
     */
    public static String eventTypeStr(int eventType) {
        return str(H.EVENT_TYPE_STR, eventType);
    }

    /**
     * {@code ibv_wc_status_str}.
     *
     * @param status an {@code IbvWcStatus} value
     * @return its name, e.g. "transport retry counter exceeded"
     */
    public static String wcStatusStr(int status) {
        return str(H.WC_STATUS_STR, status);
    }

    /**
     * {@code ibv_port_state_str}.
     *
     * @param state an {@code IbvPortState} value
     * @return its name, e.g. "active"
     */
    public static String portStateStr(int state) {
        return str(H.PORT_STATE_STR, state);
    }

    /**
     * {@code ibv_node_type_str}.
     *
     * @param nodeType an {@code IbvNodeType} value
     * @return its name, e.g. "InfiniBand channel adapter"
     */
    public static String nodeTypeStr(int nodeType) {
        return str(H.NODE_TYPE_STR, nodeType);
    }

    private static String str(MethodHandle h, int value) {
        try {
            return RdmaCm.cString((MemorySegment) h.invokeExact(value));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
