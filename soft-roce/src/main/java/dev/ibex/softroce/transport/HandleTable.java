package dev.ibex.softroce.transport;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Objects by small integer index, for O(1) lock-free lookups on the data path: AHs by handle, local names that never
 * leave the process (QPNs and memory keys do, so they are unpredictable: see {@link KeyTable}). Adding and removing
 * take a lock and reuse freed indexes last-in-first-out; the table grows by doubling up to a maximum. Readers see an entry once {@link #add} has returned.
 *
 * @param <T> the entry type
 */
final class HandleTable<T> {
    private final int first;
    private final int max;
    private volatile AtomicReferenceArray<T> slots;
    private int[] free = new int[16];
    private int freeCount;
    private int next;

    /**
     * @param first the lowest index handed out (lower ones are reserved)
     * @param max one past the highest index
     */
    HandleTable(int first, int max) {
        this.first = first;
        this.max = max;
        this.next = first;
        this.slots = new AtomicReferenceArray<>(Math.min(max, Math.max(64, first + 16)));
    }

    /** Stores {@code value} at a free index and returns it, or -1 when the table is full. */
    synchronized int add(T value) {
        int index;
        if (freeCount > 0) {
            index = free[--freeCount];
        } else if (next < max) {
            index = next++;
        } else {
            return -1;
        }
        AtomicReferenceArray<T> s = slots;
        if (index >= s.length()) {
            AtomicReferenceArray<T> bigger = new AtomicReferenceArray<>((int) Math.min(max, 2L * s.length()));
            for (int i = 0; i < s.length(); i++) {
                bigger.set(i, s.get(i));
            }
            slots = s = bigger;
        }
        s.set(index, value);
        return index;
    }

    /** Frees {@code index} if it still holds {@code value}. */
    synchronized void remove(int index, T value) {
        AtomicReferenceArray<T> s = slots;
        if (index >= first && index < s.length() && s.compareAndSet(index, value, null)) {
            if (freeCount == free.length) {
                free = java.util.Arrays.copyOf(free, free.length * 2);
            }
            free[freeCount++] = index;
        }
    }

    /** The entry at {@code index}, or {@code null}. Lock-free. */
    T get(int index) {
        AtomicReferenceArray<T> s = slots;
        return index >= 0 && index < s.length() ? s.get(index) : null;
    }
}
