package dev.ibex.verbs.provider;

import java.util.Arrays;

/**
 * The address ranges registered on one protection domain, for checking inline data before it is posted:
 * {@code ibv_post_send} copies an inline SGE's bytes with {@code memcpy}, ignoring its lkey, so a bad address in
 * a Java program would crash the JVM instead of failing the post. Lookups are lock-free and allocate nothing (an
 * immutable sorted snapshot, binary search); registering and deregistering, which are rare, copy it.
 */
final class RegisteredRanges {
    private record Snapshot(long[] starts, long[] ends) {}

    private volatile Snapshot snapshot = new Snapshot(new long[0], new long[0]);

    synchronized void add(long address, long length) {
        Snapshot s = snapshot;
        int n = s.starts.length;
        int at = insertionPoint(s.starts, address);
        long[] starts = new long[n + 1];
        long[] ends = new long[n + 1];
        System.arraycopy(s.starts, 0, starts, 0, at);
        System.arraycopy(s.ends, 0, ends, 0, at);
        starts[at] = address;
        ends[at] = address + length;
        System.arraycopy(s.starts, at, starts, at + 1, n - at);
        System.arraycopy(s.ends, at, ends, at + 1, n - at);
        snapshot = new Snapshot(starts, ends);
    }

    synchronized void remove(long address, long length) {
        Snapshot s = snapshot;
        for (int i = 0; i < s.starts.length; i++) {
            if (s.starts[i] == address && s.ends[i] == address + length) {
                long[] starts = new long[s.starts.length - 1];
                long[] ends = new long[s.ends.length - 1];
                System.arraycopy(s.starts, 0, starts, 0, i);
                System.arraycopy(s.ends, 0, ends, 0, i);
                System.arraycopy(s.starts, i + 1, starts, i, starts.length - i);
                System.arraycopy(s.ends, i + 1, ends, i, ends.length - i);
                snapshot = new Snapshot(starts, ends);
                return;
            }
        }
    }

    /** Whether {@code [address, address + length)} lies inside one registered range. */
    boolean contains(long address, long length) {
        if (length < 0 || address + length < address) {
            return false;
        }
        Snapshot s = snapshot;
        // the last range starting at or before address; overlapping registrations are allowed, so look back
        for (int i = insertionPoint(s.starts, address) - 1; i >= 0; i--) { // starts[0..i] <= address
            if (s.ends[i] >= address + length) {
                return true;
            }
        }
        return false;
    }

    private static int insertionPoint(long[] sorted, long key) {
        int i = Arrays.binarySearch(sorted, key);
        if (i < 0) {
            return -i - 1;
        }
        while (i < sorted.length && sorted[i] == key) {
            i++;
        }
        return i;
    }
}
