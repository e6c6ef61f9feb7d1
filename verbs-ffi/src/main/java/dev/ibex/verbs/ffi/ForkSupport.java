package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.check;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/**
 * Registered memory across {@code fork()}: {@code ibv_fork_init} and {@code ibv_is_fork_initialized} (when either is
 * needed: the module README).
 */
public final class ForkSupport {
    private ForkSupport() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle FORK_INIT = D.errno("ibv_fork_init", FunctionDescriptor.of(JAVA_INT));
        static final MethodHandle IS_FORK_INITIALIZED = D.optionalPlain("ibv_is_fork_initialized", FunctionDescriptor.of(JAVA_INT));
    }

    /**
     * {@code ibv_fork_init}: makes registered memory safe across {@code fork()} (MADV_DONTFORK). Call it
     * before the first memory registration when native code in the process may call {@code fork()}
     * ({@code ProcessBuilder} uses posix_spawn and is safe); see the module README.
     */
    public static void forkInit() {
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.FORK_INIT.invokeExact(cs.capture);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_fork_init", rc, cs);
    }

    /**
     * {@code ibv_is_fork_initialized} (IBVERBS_1.13, optional): an {@code IbvForkStatus} value;
     * {@code IBV_FORK_UNNEEDED} when the kernel makes fork safe by itself.
     *
     * @return the {@code IbvForkStatus}
     */
    public static int isForkInitialized() {
        try {
            return (int) H.IS_FORK_INITIALIZED.invokeExact();
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
