package dev.ibex.verbs.ffi;

/**
 * The three libraries the bindings use, each loaded lazily on first use (holder classes, so nothing is
 * loaded when these classes are merely referenced and a missing library never fails class initialization).
 */
public final class Libraries {
    /** What to install when a library is missing (Debian/Ubuntu package names). */
    public static final String INSTALL = "install rdma-core: apt-get install librdmacm1 libibverbs1";

    private Libraries() {
    }

    private static final class RdmaCmHolder {
        static final NativeLibrary LIB = NativeLibrary.load("librdmacm.so.1", INSTALL);
    }

    private static final class IbVerbsHolder {
        static final NativeLibrary LIB = NativeLibrary.load("libibverbs.so.1", INSTALL);
    }

    private static final class LibCHolder {
        static final NativeLibrary LIB = NativeLibrary.libc();
    }

    /** librdmacm ({@code librdmacm.so.1}). */
    public static NativeLibrary rdmacm() {
        return RdmaCmHolder.LIB;
    }

    /** libibverbs ({@code libibverbs.so.1}). */
    public static NativeLibrary ibverbs() {
        return IbVerbsHolder.LIB;
    }

    /** The C library, through the linker's default lookup. */
    public static NativeLibrary libc() {
        return LibCHolder.LIB;
    }
}
