package dev.ibex.verbs.provider;

import java.util.Arrays;

/**
 * Maps the 64-bit values the provider stores in the {@code void *context} fields of native objects
 * ({@code rdma_cm_id.context}, {@code ibv_cq.cq_context}, {@code ibv_qp.qp_context},
 * {@code ibv_srq.srq_context}, a multicast join's context) back to their Java objects.
 *
 * <p>Why not the objects' addresses or a map keyed by the native pointer: a native pointer is reused by
 * malloc as soon as the object is freed, and an event read just before a destroy could then be routed to
 * the next object at the same address. A handle is a slot index plus a generation that changes every
 * time the slot is released, so a stale handle finds nothing. Handles are never 0 (a NULL context means
 * "not ours"). Released slots are reused, so the table never grows beyond the peak number of live objects.
 *
 * <p>Thread-safe; every method takes the table's monitor (uncontended in practice, allocation-free).
 */
final class HandleTable {
    private Object[] objects = new Object[64];
    private int[] generations = new int[64];
    private int[] free = new int[64];
    private int freeCount;
    private int used;
    private int live;

    /** Registers {@code object} and returns its handle. */
    synchronized long register(Object object) {
        if (object == null) {
            throw new IllegalArgumentException("null object");
        }
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (used == objects.length) {
                int n = objects.length * 2;
                objects = Arrays.copyOf(objects, n);
                generations = Arrays.copyOf(generations, n);
                free = Arrays.copyOf(free, n);
            }
            slot = used++;
        }
        if (generations[slot] == 0) {
            generations[slot] = 1;
        }
        objects[slot] = object;
        live++;
        return ((long) generations[slot] << 32) | slot;
    }

    /** The object registered under {@code handle}, or {@code null} when it was released or never existed. */
    synchronized Object lookup(long handle) {
        int slot = (int) handle;
        int generation = (int) (handle >>> 32);
        if (slot < 0 || slot >= used || generation == 0 || generations[slot] != generation) {
            return null;
        }
        return objects[slot];
    }

    /** {@link #lookup} with a type check: {@code null} when absent or of another type. */
    <T> T lookup(long handle, Class<T> type) {
        Object o = lookup(handle);
        return type.isInstance(o) ? type.cast(o) : null;
    }

    /** Releases {@code handle}; later lookups of it return {@code null}. Idempotent. */
    synchronized void release(long handle) {
        int slot = (int) handle;
        int generation = (int) (handle >>> 32);
        if (slot < 0 || slot >= used || generation == 0 || generations[slot] != generation) {
            return;
        }
        objects[slot] = null;
        int next = generation + 1;
        generations[slot] = next == 0 ? 1 : next;
        free[freeCount++] = slot;
        live--;
    }

    /** The number of registered objects. */
    synchronized int size() {
        return live;
    }
}
