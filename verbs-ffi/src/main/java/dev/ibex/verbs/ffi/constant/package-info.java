/**
 * The C enum and flag constants of {@code rdma_cma.h}, {@code verbs.h} and the few libc headers the
 * bindings use. One class per C enum, named after it; fields carry the exact C names so code reads like
 * the C API (static-import them). Enum-like classes offer {@code name(int)} and flag classes
 * {@code describe(int)} for readable messages.
 */
package dev.ibex.verbs.ffi.constant;
