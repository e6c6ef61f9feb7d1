/** FFM bindings to librdmacm, libibverbs and libc. */
package dev.ibex.verbs.ffi;
