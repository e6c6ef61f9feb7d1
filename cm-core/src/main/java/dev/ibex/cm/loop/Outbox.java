package dev.ibex.cm.loop;

import java.util.ArrayDeque;

/**
 * A loop thread's tasks for loops whose task queue was full: kept here, in the order they were submitted, and
 * offered again at the start of each of the owner's turns, so a loop thread never waits for another loop (two
 * loops waiting for each other's full queue would deadlock) and no task is lost. Once anything waits here, every
 * later task of this thread waits behind it, whatever loop it is for, so each loop still receives a thread's
 * tasks in the order it submitted them. Allocates only when it grows (a deque of target/task pairs).
 *
 * <p>Threading: the owner loop's thread only.
 */
final class Outbox {
    private final ArrayDeque<LoopTasks> targets = new ArrayDeque<>();
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(); // tasks[i] is for targets[i]
    private long deferred;

    /** Hands {@code task} to {@code target}'s queue now if nothing waits here and there is room, else keeps it. */
    void send(LoopTasks target, Runnable task) {
        if (targets.isEmpty() && target.offer(task)) {
            return;
        }
        targets.addLast(target);
        tasks.addLast(task);
        deferred++;
    }

    /** Offers the kept tasks again, oldest first, until one still does not fit. */
    void flush() {
        LoopTasks target;
        while ((target = targets.peekFirst()) != null) {
            if (!target.offer(tasks.peekFirst())) {
                return;
            }
            targets.pollFirst();
            tasks.pollFirst();
        }
    }

    /** {@return whether tasks wait here} */
    boolean isEmpty() {
        return targets.isEmpty();
    }

    /** {@return whether the oldest kept task is for {@code queue}} */
    boolean headIsFor(LoopTasks queue) {
        return targets.peekFirst() == queue;
    }

    /** {@return how many tasks ever had to wait here} */
    long deferred() {
        return deferred;
    }

    /** {@return the task queue of the loop the oldest kept task is for, or {@code null}} */
    LoopTasks peekTarget() {
        return targets.peekFirst();
    }

    /** Takes the oldest kept task (after {@link #peekTarget()}): for the owner's termination. */
    Runnable take() {
        targets.pollFirst();
        return tasks.pollFirst();
    }
}
