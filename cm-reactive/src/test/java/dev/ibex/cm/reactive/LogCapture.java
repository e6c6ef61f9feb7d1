package dev.ibex.cm.reactive;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Captures one logger's events (at {@code level} and above) in memory, not passing them on; close restores it. */
final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final Level before;
    private final boolean additive;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture(String name, Level level) {
        logger = (Logger) LoggerFactory.getLogger(name);
        before = logger.getLevel();
        additive = logger.isAdditive();
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(level);
        logger.setAdditive(false);
    }

    /** Every event so far, as {@code LEVEL message} lines. */
    List<String> lines() {
        return appender.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(before);
        logger.setAdditive(additive);
    }
}
