package dev.ibex.bench.faults;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Exceptions that escaped somewhere and were only logged: soft-roce's receive threads, timers and work queue, the CM,
 * and cm-core catch what their code throws, log it and carry on, so a harness that looks only at uncaught handlers
 * would miss them. Installed on the root logger while a fault run lasts, it keeps every ERROR and every WARN that
 * carries a throwable from an {@code dev.ibex} logger; the thread default uncaught handler is recorded too.
 *
 * <p>Threading: any thread.
 */
public final class LoggedFailures extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    private static final int KEEP = 50;

    private final List<String> failures = new ArrayList<>();
    private long count;
    private final Thread.UncaughtExceptionHandler previous;

    private LoggedFailures() {
        previous = Thread.getDefaultUncaughtExceptionHandler();
    }

    /** Starts collecting (also as the thread default uncaught handler); {@link #close()} stops. */
    public static LoggedFailures install() {
        LoggedFailures f = new LoggedFailures();
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx) {
            f.setContext(ctx);
            f.setName("ibex-logged-failures");
            f.start();
            ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(f);
        }
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> f.record("uncaught on " + t.getName() + ": " + e));
        return f;
    }

    @Override
    protected void append(ILoggingEvent e) {
        if (!e.getLoggerName().startsWith("dev.ibex")) {
            return;
        }
        IThrowableProxy t = e.getThrowableProxy();
        boolean error = e.getLevel().isGreaterOrEqual(Level.ERROR);
        if (error || (t != null && e.getLevel().isGreaterOrEqual(Level.WARN))) {
            record(e.getLevel() + " " + e.getLoggerName() + " [" + e.getThreadName() + "]: " + e.getFormattedMessage()
                    + (t == null ? "" : " — " + t.getClassName() + ": " + t.getMessage()));
        }
    }

    private synchronized void record(String what) {
        count++;
        if (failures.size() < KEEP) {
            failures.add(what);
        }
    }

    /** How many were seen so far. */
    public synchronized long count() {
        return count;
    }

    /** The first {@value #KEEP} of them. */
    public synchronized List<String> failures() {
        return List.copyOf(failures);
    }

    @Override
    public void close() {
        Thread.setDefaultUncaughtExceptionHandler(previous);
        if (getContext() instanceof ch.qos.logback.classic.LoggerContext ctx) {
            Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            root.detachAppender(this);
        }
        stop();
    }
}
