package dev.ibex.cm.loop;

import java.util.Arrays;

/**
 * An event loop's timers: a binary min-heap by deadline, then by scheduling order, in which every task knows its
 * own slot ({@link ScheduledTask#heapIndex}), so cancelling one removes it in O(log n) — as libevent's and the
 * kernel's timer structures do — where {@code PriorityQueue.remove(Object)} first searched the whole queue (a loop
 * with a thousand connects in flight, each with its connect timer, searched about five hundred timers per
 * ESTABLISHED).
 *
 * <p>Threading: the loop thread only.
 */
final class TimerHeap {
    private ScheduledTask[] heap = new ScheduledTask[64];
    private int size;

    /** {@return timers waiting} */
    int size() {
        return size;
    }

    /** {@return the earliest timer, or {@code null}} */
    ScheduledTask peek() {
        return size == 0 ? null : heap[0];
    }

    /** Adds {@code t}, which is in no heap. */
    void add(ScheduledTask t) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        siftUp(size++, t);
    }

    /** {@return the earliest timer, removed, or {@code null}} */
    ScheduledTask poll() {
        if (size == 0) {
            return null;
        }
        ScheduledTask first = heap[0];
        removeAt(0);
        return first;
    }

    /** Removes {@code t} if it is in this heap; nothing otherwise. */
    void remove(ScheduledTask t) {
        int i = t.heapIndex;
        if (i >= 0 && i < size && heap[i] == t) {
            removeAt(i);
        }
    }

    private void removeAt(int i) {
        ScheduledTask gone = heap[i];
        gone.heapIndex = -1;
        int last = --size;
        ScheduledTask moved = heap[last];
        heap[last] = null;
        if (i != last) {
            siftDown(i, moved);
            if (heap[i] == moved) {
                siftUp(i, moved);
            }
        }
    }

    private void siftUp(int i, ScheduledTask t) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            ScheduledTask p = heap[parent];
            if (t.compareTo(p) >= 0) {
                break;
            }
            place(i, p);
            i = parent;
        }
        place(i, t);
    }

    private void siftDown(int i, ScheduledTask t) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            ScheduledTask c = heap[child];
            int right = child + 1;
            if (right < size && c.compareTo(heap[right]) > 0) {
                c = heap[child = right];
            }
            if (t.compareTo(c) <= 0) {
                break;
            }
            place(i, c);
            i = child;
        }
        place(i, t);
    }

    private void place(int i, ScheduledTask t) {
        heap[i] = t;
        t.heapIndex = i;
    }
}
