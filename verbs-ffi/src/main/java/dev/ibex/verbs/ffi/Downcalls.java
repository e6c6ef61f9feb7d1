package dev.ibex.verbs.ffi;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Builds the downcall handles of one library and remembers which functions it binds (the symbol test
 * walks {@link #functions()}).
 *
 * <p>Building a handle never throws. When the library or the symbol is missing the handle has the right
 * type but throws the library's {@link RdmaException} ("librdmacm.so.1 not found: install rdma-core …")
 * when invoked, so holder classes with {@code static final} handles initialize fine on any machine and
 * the failure surfaces at the first call, with a message a user can act on.
 *
 * <p>Errno: handles made with {@link #errno} take a leading capture segment ({@link CallState#capture()})
 * into which the JVM saves {@code errno} immediately after the call, before any other code of the
 * JVM can overwrite it.
 */
public final class Downcalls {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MethodHandle UNAVAILABLE;

    static {
        try {
            UNAVAILABLE = MethodHandles.lookup().findVirtual(NativeLibrary.class, "unavailable",
                    MethodType.methodType(RdmaException.class, String.class));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * One bound function.
     *
     * @param library soname of the library
     * @param symbol the C name
     * @param optional whether the bindings work without it (a newer symbol resolved only when present)
     * @param present whether it resolved here
     */
    public record Function(String library, String symbol, boolean optional, boolean present) {
    }

    private final NativeLibrary library;
    private final List<Function> functions = Collections.synchronizedList(new ArrayList<>());

    private Downcalls(NativeLibrary library) {
        this.library = library;
    }

    /** A builder for the functions of {@code library}. */
    public static Downcalls of(NativeLibrary library) {
        return new Downcalls(library);
    }

    /** The library these handles call into. */
    public NativeLibrary library() {
        return library;
    }

    /** Every function bound so far, in declaration order. */
    public List<Function> functions() {
        synchronized (functions) {
            return List.copyOf(functions);
        }
    }

    /** A handle that captures errno: its first parameter is the capture segment. */
    public MethodHandle errno(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        return bind(symbol, descriptor, false, withCapture(options));
    }

    /** A handle without errno capture, for functions that report no errors or return them directly. */
    public MethodHandle plain(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        return bind(symbol, descriptor, false, options);
    }

    /** Like {@link #errno} for a symbol that older rdma-core versions lack; check {@link #present}. */
    public MethodHandle optionalErrno(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        return bind(symbol, descriptor, true, withCapture(options));
    }

    /** Like {@link #plain} for a symbol that older rdma-core versions lack; check {@link #present}. */
    public MethodHandle optionalPlain(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        return bind(symbol, descriptor, true, options);
    }

    /** Whether {@code symbol} resolved. */
    public boolean present(String symbol) {
        return library.hasSymbol(symbol);
    }

    /**
     * A handle that calls a C function pointer, passed as the first argument (a {@link MemorySegment}).
     * Used for the provider function tables in {@code struct ibv_context}: one handle per signature serves
     * every context and every provider.
     */
    public static MethodHandle pointer(FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(descriptor, options);
    }

    /** {@link #pointer} with errno capture: arguments are (function, capture segment, C arguments…). */
    public static MethodHandle pointerWithErrno(FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(descriptor, withCapture(options));
    }

    /** Unwraps what {@code invokeExact} may throw: runtime exceptions and errors as they are. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("unexpected checked exception from a downcall", t);
    }

    private MethodHandle bind(String symbol, FunctionDescriptor descriptor, boolean optional, Linker.Option[] options) {
        Optional<MemorySegment> address = library.find(symbol);
        functions.add(new Function(library.soname(), symbol, optional, address.isPresent()));
        MethodType type = descriptor.toMethodType();
        if (Arrays.asList(options).contains(CAPTURE_ERRNO)) {
            type = type.insertParameterTypes(0, MemorySegment.class);
        }
        if (address.isEmpty()) {
            return thrower(type, UNAVAILABLE.bindTo(library).bindTo(symbol));
        }
        try {
            return LINKER.downcallHandle(address.get(), descriptor, options);
        } catch (IllegalCallerException e) {
            RdmaException denied = new RdmaException(symbol, Errno.EPERM.number(),
                    "native access is denied; run java with " + NativeLibrary.nativeAccessFlag(), e);
            return thrower(type, MethodHandles.constant(RdmaException.class, denied));
        }
    }

    private static MethodHandle thrower(MethodType type, MethodHandle exceptionSupplier) {
        MethodHandle thrower = MethodHandles.throwException(type.returnType(), RdmaException.class);
        MethodHandle throwing = MethodHandles.foldArguments(thrower, exceptionSupplier);
        return MethodHandles.dropArguments(throwing, 0, type.parameterList());
    }

    private static Linker.Option[] withCapture(Linker.Option[] options) {
        Linker.Option[] all = Arrays.copyOf(options, options.length + 1);
        all[options.length] = CAPTURE_ERRNO;
        return all;
    }
}
