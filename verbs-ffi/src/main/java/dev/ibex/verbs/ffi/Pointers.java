package dev.ibex.verbs.ffi;

import java.lang.foreign.MemorySegment;

/** Argument checks done before a native call, so a NULL object pointer is an exception and not a crash. */
final class Pointers {
    private Pointers() {
    }

    /** Throws {@link IllegalArgumentException} when {@code p} is NULL. */
    static MemorySegment require(MemorySegment p, String what, String verb) {
        if (p == null || p.address() == 0) {
            throw new IllegalArgumentException(verb + ": " + what + " must not be NULL");
        }
        return p;
    }
}
