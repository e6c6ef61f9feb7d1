package dev.ibex.softroce.transport;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * Objects by an unpredictable 24-bit number: QPs by QPN, memory regions and windows by the index part of their key
 * ({@code key >>> 8}). A number is drawn at random among the free ones when an object is added, so a peer that knows
 * some numbers learns nothing about the others (a table index would give every neighbour away, as the ReDMArk paper
 * shows for rxe's keys). Lookups are lock-free and allocate nothing: an open-addressed table of immutable entries
 * with linear probing, where a removed entry leaves a tombstone (so no probe chain ever breaks under a reader) and a
 * rehash into a fresh array, published with one volatile write, sweeps the tombstones out.
 *
 * <p>Threading: {@link #get} and {@link #find} from any thread without locks; adding and removing under the table's
 * monitor.
 *
 * @param <T> the entry type
 */
final class KeyTable<T> {
    /** Largest number handed out (24 bits). */
    static final int MASK = 0xFFFFFF;

    private record Entry<T>(int key, T value) {}

    private static final Entry<Object> TOMBSTONE = new Entry<>(-1, null);

    private final int max;
    private final int[] reserved;
    private final RandomGenerator random;
    private volatile AtomicReferenceArray<Entry<T>> slots = new AtomicReferenceArray<>(64);
    private int live;
    private int used;

    /**
     * @param max the most entries alive at once
     * @param random where numbers come from (a {@link java.security.SecureRandom})
     * @param reserved numbers never handed out besides 0 (e.g. QP0, QP1 and the multicast QPN)
     */
    KeyTable(int max, RandomGenerator random, int... reserved) {
        this.max = max;
        this.random = random;
        this.reserved = reserved.clone();
    }

    /** Stores {@code value} under a random free number and returns it, or -1 when {@code max} entries live. */
    synchronized int add(T value) {
        if (live >= max) {
            return -1;
        }
        int key;
        do {
            key = random.nextInt() & MASK;
        } while (key == 0 || isReserved(key) || get(key) != null);
        if ((used + 1) * 2 > slots.length()) {
            rehash();
        }
        insert(slots, new Entry<>(key, value));
        live++;
        used++;
        return key;
    }

    /** Frees {@code key} if it still holds {@code value}. */
    synchronized void remove(int key, T value) {
        AtomicReferenceArray<Entry<T>> s = slots;
        int mask = s.length() - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            Entry<T> e = s.get(i);
            if (e == null) {
                return;
            }
            if (e.key == key && e.value == value) {
                s.set(i, tombstone());
                live--;
                return;
            }
        }
    }

    /** The entry under {@code key}, or {@code null}. Lock-free, allocation-free. */
    T get(int key) {
        AtomicReferenceArray<Entry<T>> s = slots;
        int mask = s.length() - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            Entry<T> e = s.get(i);
            if (e == null) {
                return null;
            }
            if (e.key == key) {
                return e.value;
            }
        }
    }

    /** The first live entry that matches, or {@code null} (a scan; not for the data path). */
    T find(Predicate<? super T> p) {
        AtomicReferenceArray<Entry<T>> s = slots;
        for (int i = 0; i < s.length(); i++) {
            Entry<T> e = s.get(i);
            if (e != null && e.key >= 0 && p.test(e.value)) {
                return e.value;
            }
        }
        return null;
    }

    /** Entries alive. */
    synchronized int size() {
        return live;
    }

    private boolean isReserved(int key) {
        for (int r : reserved) {
            if (r == key) {
                return true;
            }
        }
        return false;
    }

    /** A fresh array at most a quarter full, without tombstones; readers keep using the old one until they reload. */
    private void rehash() {
        AtomicReferenceArray<Entry<T>> old = slots;
        int size = 64;
        while (size < (live + 1) * 4) {
            size <<= 1;
        }
        AtomicReferenceArray<Entry<T>> fresh = new AtomicReferenceArray<>(size);
        for (int i = 0; i < old.length(); i++) {
            Entry<T> e = old.get(i);
            if (e != null && e.key >= 0) {
                insert(fresh, e);
            }
        }
        used = live;
        slots = fresh;
    }

    private static <T> void insert(AtomicReferenceArray<Entry<T>> s, Entry<T> e) {
        int mask = s.length() - 1;
        int i = hash(e.key) & mask;
        while (s.get(i) != null && s.get(i).key >= 0) {
            i = (i + 1) & mask;
        }
        // a tombstone may be reused: the slot stays non-null, so no reader's probe chain is cut short
        s.set(i, e);
    }

    @SuppressWarnings("unchecked")
    private static <T> Entry<T> tombstone() {
        return (Entry<T>) (Entry<?>) TOMBSTONE;
    }

    private static int hash(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
