package dev.ibex.cm.reactive;

import dev.ibex.cm.RdmaException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.IntSupplier;

/**
 * The send side of one endpoint, shared by every reactive operation on it (loop-confined):
 *
 * <ul>
 *   <li>an operation table: each reactive operation registers once and gets an id; the {@code long attachment}
 *       of its work requests is {@code id << 32 | tag}, so completions find their operation without allocating;
 *   <li>slot arbitration: the send queue has {@code writableSlots()} free slots. Operations ask for slots and wait
 *       in FIFO order; a grant reserves slots until the operation posts into them (a {@code send(Publisher)}
 *       requests exactly its grant from upstream), so the queue is never overrun and nothing waits in memory
 *       beyond what was granted.
 * </ul>
 */
final class Outbound {

    /** An operation whose work requests complete through this table. */
    interface Op {
        void completed(int tag);

        void failed(int tag, RdmaException error);
    }

    /** Something that wants send-queue slots. */
    abstract static class SlotUser {
        private boolean queued;

        /** How many more slots it could use now (0 when none). */
        abstract int wantedSlots();

        /** {@code n} slots are reserved for it; it must {@link #consume} one per post or {@link #giveBack}. */
        abstract void granted(int n);

        /** The endpoint can send no more: fail. */
        abstract void closed(Throwable cause);
    }

    private final IntSupplier writableSlots;
    private Op[] ops = new Op[16];
    private int[] freeIds = new int[16];
    private int freeTop;
    private int nextId = 1;
    private final ArrayDeque<SlotUser> waiting = new ArrayDeque<>();
    private int reserved;
    private boolean granting;
    private Throwable closed;

    Outbound(IntSupplier writableSlots) {
        this.writableSlots = writableSlots;
    }

    static long attachment(int id, int tag) {
        return ((long) id << 32) | (tag & 0xFFFF_FFFFL);
    }

    // ---- the operation table ----

    int register(Op op) {
        int id = freeTop > 0 ? freeIds[--freeTop] : nextId++;
        if (id >= ops.length) {
            ops = Arrays.copyOf(ops, ops.length * 2);
        }
        ops[id] = op;
        return id;
    }

    void unregister(int id) {
        if (id > 0 && id < ops.length && ops[id] != null) {
            ops[id] = null;
            if (freeTop == freeIds.length) {
                freeIds = Arrays.copyOf(freeIds, freeIds.length * 2);
            }
            freeIds[freeTop++] = id;
        }
    }

    /** Operations registered now (for tests: 0 once everything finished). */
    int registered() {
        return nextId - 1 - freeTop;
    }

    void completed(long attachment) {
        Op op = op(attachment);
        if (op != null) {
            op.completed((int) attachment);
        }
        grant();
    }

    void failed(long attachment, RdmaException error) {
        Op op = op(attachment);
        if (op != null) {
            op.failed((int) attachment, error);
        }
        grant();
    }

    private Op op(long attachment) {
        int id = (int) (attachment >>> 32);
        return id > 0 && id < ops.length ? ops[id] : null; // else a work request posted outside the reactive API
    }

    // ---- slots ----

    int freeSlots() {
        return writableSlots.getAsInt() - reserved;
    }

    /** Slots granted and not yet used. */
    int reserved() {
        return reserved;
    }

    /** Why the endpoint can send no more, or {@code null} while it can. */
    Throwable closedCause() {
        return closed;
    }

    /** Queues {@code u} for slots (at the back) unless it waits already, then grants what is free. */
    void await(SlotUser u) {
        if (closed != null) {
            u.closed(closed);
            return;
        }
        if (!u.queued) {
            u.queued = true;
            waiting.add(u);
        }
        grant();
    }

    /** Removes {@code u} from the queue (cancelled). */
    void withdraw(SlotUser u) {
        if (u.queued) {
            u.queued = false;
            waiting.remove(u);
        }
    }

    /** One reserved slot is about to be used by a post. */
    void consume() {
        reserved--;
    }

    /** Reserved slots that will not be used. */
    void giveBack(int n) {
        if (n > 0) {
            reserved -= n;
            grant();
        }
    }

    /** Hands free slots to waiting users, in turn. Called whenever slots may have been freed. */
    void grant() {
        if (granting || closed != null) {
            return;
        }
        granting = true;
        try {
            while (!waiting.isEmpty()) {
                int free = freeSlots();
                if (free <= 0) {
                    return;
                }
                SlotUser u = waiting.poll();
                u.queued = false;
                int want = u.wantedSlots();
                if (want <= 0) {
                    continue;
                }
                int g = Math.min(want, free);
                reserved += g;
                u.granted(g);
                if (!u.queued && closed == null && u.wantedSlots() > 0) {
                    u.queued = true;
                    waiting.add(u); // round robin: the others get their turn first
                }
            }
        } finally {
            granting = false;
        }
    }

    /** The endpoint stopped sending: every waiting user fails with {@code cause}; later ones at once. */
    void close(Throwable cause) {
        if (closed != null) {
            return;
        }
        closed = cause;
        SlotUser u;
        while ((u = waiting.poll()) != null) {
            u.queued = false;
            u.closed(cause);
        }
    }
}
