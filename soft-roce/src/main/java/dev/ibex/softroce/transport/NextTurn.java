package dev.ibex.softroce.transport;

import java.util.Arrays;

/**
 * QP tasks a loop that receives its own packets ({@link InlineReception}) takes up again on its next turn instead of
 * handing them to the {@link WorkQueue}'s thread: the rest of a requester's burst past its per-turn budget, a long
 * READ reply, the flush after an error. On a loop the budget is there so that the loop also reads its sockets, not
 * so that another thread sends: handing the rest over made a second thread send beside the loop, the two
 * contending for the socket, and cost a wake-up per burst. {@link WorkQueue#defer} notes the task here when the
 * calling thread has a current turn, and the poller runs the noted tasks at the start of its next poll and never
 * blocks while any wait.
 *
 * <p><b>Threading.</b> Confined to the polling thread it was installed on; {@link #handOff} gives what is noted to
 * the work queues when the poller closes.
 */
final class NextTurn {
    private static final ThreadLocal<NextTurn> CURRENT = new ThreadLocal<>();

    // double-buffered: a task that notes itself again while the noted ones run waits for the turn after
    private SerialTask[] tasks = new SerialTask[8];
    private WorkQueue[] queues = new WorkQueue[8];
    private int count;
    private SerialTask[] running = new SerialTask[8];
    private WorkQueue[] runningQueues = new WorkQueue[8];
    private volatile boolean retired;

    /** The calling thread's next turn, or {@code null}: the thread is no polling thread (or its poller closed). */
    static NextTurn onThisThread() {
        NextTurn t = CURRENT.get();
        return t != null && !t.retired ? t : null;
    }

    /** Makes this the calling thread's next turn (a poller's thread, at each poll). */
    void install() {
        if (CURRENT.get() != this) {
            CURRENT.set(this);
        }
    }

    /** Notes {@code task} (queued for {@code queue}: its {@link SerialTask#queued} flag is set) for the next turn. */
    void add(SerialTask task, WorkQueue queue) {
        if (count == tasks.length) {
            tasks = Arrays.copyOf(tasks, count * 2); // grows with the QPs of one turn, then stays
            queues = Arrays.copyOf(queues, count * 2);
        }
        tasks[count] = task;
        queues[count++] = queue;
    }

    /** Whether a task waits for the next turn. */
    boolean isEmpty() {
        return count == 0;
    }

    /** Runs the noted tasks on this thread; those that note themselves again wait for the next call. */
    void run() {
        int n = count;
        if (n == 0) {
            return;
        }
        SerialTask[] t = tasks;
        WorkQueue[] q = queues;
        tasks = running;
        queues = runningQueues;
        running = t;
        runningQueues = q;
        count = 0;
        if (tasks.length < t.length) {
            tasks = new SerialTask[t.length];
            queues = new WorkQueue[t.length];
        }
        for (int i = 0; i < n; i++) {
            SerialTask task = t[i];
            t[i] = null;
            q[i] = null;
            task.queued.set(false); // before it runs, as the work queue does: a defer meanwhile notes it again
            task.schedule();
        }
    }

    /** The poller closes: what is noted goes to the work queues, and later defers on this thread go there too. */
    void handOff() {
        retired = true;
        int n = count;
        count = 0;
        for (int i = 0; i < n; i++) {
            SerialTask task = tasks[i];
            WorkQueue queue = queues[i];
            tasks[i] = null;
            queues[i] = null;
            task.queued.set(false);
            queue.defer(task);
        }
    }
}
