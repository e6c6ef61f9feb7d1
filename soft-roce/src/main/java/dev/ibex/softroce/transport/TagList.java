package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.SrqOpsBatch;

/**
 * The matching list of a tag-matching SRQ and its phase counters, in preallocated arrays: tagged buffers in posting
 * order (a doubly linked list over slots), a free stack, and per slot the tag, mask, receive id, scatter list and a
 * generation so a handle whose buffer was consumed or removed is recognised as stale.
 *
 * <p>Phase synchronisation as rdma-core's {@code Documentation/tag_matching.md} and mlx5 keep it: {@code unexpected}
 * counts tagged messages that matched nothing (the "hardware" count), {@code reported} is the last count software
 * passed with {@code IBV_OPS_TM_SYNC}. A buffer added while the two differ is not armed — software had not yet seen
 * every unexpected message, one of which may be the message this buffer is for — until an operation reports the full
 * count, which arms every buffer in the list.
 *
 * <p>Not thread-safe: {@link SoftTagMatchingSrq} guards it with its monitor (the poster's list operations and the
 * receive tasks of every QP on the SRQ meet here).
 */
final class TagList {
    private final int capacity;
    private final long[] tag;
    private final long[] mask;
    private final int[] generation;
    private final boolean[] armed;
    private final int[] next;
    private final int[] prev;
    private final RecvWqe[] buffer;
    private final int[] free;
    private int freeTop;
    private int head = -1;
    private int tail = -1;
    private int size;
    private int unexpected;
    private int reported;

    TagList(int capacity, int maxSge) {
        if (capacity <= 0 || capacity > 1 << 16) {
            throw new IllegalArgumentException("a matching list holds 1.." + (1 << 16) + " tags, got " + capacity);
        }
        this.capacity = capacity;
        tag = new long[capacity];
        mask = new long[capacity];
        generation = new int[capacity];
        armed = new boolean[capacity];
        next = new int[capacity];
        prev = new int[capacity];
        buffer = new RecvWqe[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            buffer[i] = new RecvWqe(maxSge);
            free[i] = capacity - 1 - i;
            next[i] = -1;
            prev[i] = -1;
        }
        freeTop = capacity;
    }

    int size() {
        return size;
    }

    int unexpected() {
        return unexpected;
    }

    boolean inSync() {
        return unexpected == reported;
    }

    /** Whether {@code handle} names a slot of this list at all (stale or not). */
    boolean isHandle(int handle) {
        return (handle & 0xFFFF) < capacity && handle >>> 16 <= 0xFFFF;
    }

    /**
     * Software reports {@code count} unexpected messages handled; {@code false} (nothing changes) when that is more
     * than were delivered. Reaching the full count arms every listed buffer.
     */
    boolean report(int count) {
        if (unexpected - count < 0) {
            return false;
        }
        reported = count;
        if (inSync()) {
            for (int s = head; s >= 0; s = next[s]) {
                armed[s] = true;
            }
        }
        return true;
    }

    /** Appends operation {@code i}'s tagged buffer; its handle, or -1 when the list is full. */
    int add(SrqOpsBatch ops, int i, int numSge) {
        if (freeTop == 0) {
            return -1;
        }
        int s = free[--freeTop];
        tag[s] = ops.tag(i);
        mask[s] = ops.mask(i);
        armed[s] = inSync();
        RecvWqe w = buffer[s];
        w.wrId = ops.recvWrId(i);
        w.numSge = numSge;
        long total = 0;
        for (int j = 0; j < numSge; j++) {
            w.addr[j] = ops.sgeAddr(i, j);
            w.length[j] = ops.sgeLength(i, j);
            w.lkey[j] = ops.sgeLkey(i, j);
            total += Integer.toUnsignedLong(w.length[j]);
        }
        w.totalLength = total;
        prev[s] = tail;
        next[s] = -1;
        if (tail >= 0) {
            next[tail] = s;
        } else {
            head = s;
        }
        tail = s;
        size++;
        return generation[s] << 16 | s;
    }

    /** Removes the buffer of {@code handle}; {@code false} when a message consumed it (or it was removed) before. */
    boolean remove(int handle) {
        int s = handle & 0xFFFF;
        if (s >= capacity || generation[s] != handle >>> 16 || !listed(s)) {
            return false;
        }
        unlink(s);
        return true;
    }

    /**
     * Finds the first armed buffer, in posting order, whose tag equals {@code msgTag & mask}, moves it into
     * {@code into} and removes it; {@code false} when none matches.
     */
    boolean match(long msgTag, RecvWqe into) {
        for (int s = head; s >= 0; s = next[s]) {
            if (armed[s] && (msgTag & mask[s]) == tag[s]) {
                into.copyFrom(buffer[s]);
                unlink(s);
                return true;
            }
        }
        return false;
    }

    /** A tagged message matched nothing and went to an ordinary receive. */
    void countUnexpected() {
        unexpected++;
    }

    private boolean listed(int s) {
        return s == head || prev[s] >= 0;
    }

    private void unlink(int s) {
        if (prev[s] >= 0) {
            next[prev[s]] = next[s];
        } else {
            head = next[s];
        }
        if (next[s] >= 0) {
            prev[next[s]] = prev[s];
        } else {
            tail = prev[s];
        }
        prev[s] = -1;
        next[s] = -1;
        generation[s] = (generation[s] + 1) & 0xFFFF;
        free[freeTop++] = s;
        size--;
    }
}
