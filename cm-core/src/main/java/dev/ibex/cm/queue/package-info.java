/**
 * The bounded multi-producer single-consumer queue that carries work from other threads to the one thread that owns
 * it: an event loop's tasks (cm-core) and soft-roce's work queue. It depends on nothing (no {@code sun.misc.Unsafe}:
 * {@link java.lang.invoke.VarHandle}s only), so it runs with {@code --sun-misc-unsafe-memory-access=deny}.
 */
package dev.ibex.cm.queue;
