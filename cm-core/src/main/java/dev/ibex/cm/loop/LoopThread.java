package dev.ibex.cm.loop;

/** The threads of event loops (what BlockHound is told are non-blocking: {@link EventLoop#isLoopThread}). */
final class LoopThread extends Thread {
    final EventLoop loop;

    LoopThread(EventLoop loop, Runnable r, String name) {
        super(r, name);
        this.loop = loop;
        setDaemon(true);
    }
}
