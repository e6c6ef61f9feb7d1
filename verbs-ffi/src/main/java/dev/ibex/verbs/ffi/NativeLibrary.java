package dev.ibex.verbs.ffi;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.util.Optional;

/**
 * A shared library loaded by soname, or the record of why it could not be loaded.
 *
 * <p>Loading never throws: a missing library is remembered and every use reports it as an
 * {@link RdmaException} that says what to install. This keeps class initialization safe (no
 * {@link ExceptionInInitializerError} that would poison the binding classes) and lets a provider probe
 * cheaply. Libraries are loaded into the global arena and never unloaded: libibverbs keeps provider
 * plugins and device state for the life of the process.
 */
public final class NativeLibrary {
    private final String soname;
    private final String install;
    private final SymbolLookup lookup;
    private final String failure;

    private NativeLibrary(String soname, String install, SymbolLookup lookup, String failure) {
        this.soname = soname;
        this.install = install;
        this.lookup = lookup;
        this.failure = failure;
    }

    /**
     * Loads {@code soname} with the system's dynamic loader.
     *
     * @param install what to tell the user when it is missing, e.g. "install rdma-core: apt-get install ..."
     */
    static NativeLibrary load(String soname, String install) {
        try {
            return new NativeLibrary(soname, install, SymbolLookup.libraryLookup(soname, Arena.global()), null);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            // IllegalArgumentException: dlopen failed; IllegalCallerException: native access denied
            String why = e instanceof IllegalCallerException
                    ? soname + " cannot be loaded: native access is denied (" + e.getMessage()
                            + "); run java with " + nativeAccessFlag()
                    : soname + " not found: " + install;
            return new NativeLibrary(soname, install, null, why);
        }
    }

    /**
     * The flag that grants these bindings native access: by module name on the module path, {@code ALL-UNNAMED}
     * on the class path.
     */
    static String nativeAccessFlag() {
        Module m = NativeLibrary.class.getModule();
        return "--enable-native-access=" + (m.isNamed() ? m.getName() : "ALL-UNNAMED");
    }

    /** The C library and everything the JVM process already loaded ({@link Linker#defaultLookup()}). */
    static NativeLibrary libc() {
        return new NativeLibrary("libc.so.6", "", Linker.nativeLinker().defaultLookup(), null);
    }

    /** The soname, e.g. {@code librdmacm.so.1}. */
    public String soname() {
        return soname;
    }

    /** Whether the library was loaded. */
    public boolean isAvailable() {
        return lookup != null;
    }

    /** Why the library is unavailable, or empty when it is available. */
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(failure);
    }

    /** The address of {@code symbol}, or empty when the library or the symbol is missing. */
    public Optional<MemorySegment> find(String symbol) {
        return lookup == null ? Optional.empty() : lookup.find(symbol);
    }

    /** Whether {@code symbol} is exported (the default version, as {@code dlsym} resolves it). */
    public boolean hasSymbol(String symbol) {
        return find(symbol).isPresent();
    }

    /**
     * The failure to report when {@code verb} cannot be called: the library is missing, or this version
     * of it lacks the symbol.
     */
    RdmaException unavailable(String verb) {
        if (failure != null) {
            return new RdmaException(verb, Errno.ELIBACC, failure);
        }
        return new RdmaException(verb, Errno.ENOSYS,
                verb + " is not exported by " + soname + " (the installed rdma-core is too old); " + install);
    }

    @Override
    public String toString() {
        return soname + (failure == null ? "" : " (unavailable: " + failure + ")");
    }
}
