package dev.ibex.softroce;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file of {@link FaultCommands} that a fabric follows ({@code ibex.softroce.fault.control}): every complete line
 * appended to it — by a test, a script, another process ({@code echo "cut 127.0.0.2 127.0.0.3" >> ctl}) — is applied
 * within about {@value #POLL_MILLIS} ms, in order, lines already there when the fabric opens included. A file that
 * does not exist yet is waited for; one that shrinks is read again from the start. A bad line is logged and skipped.
 *
 * <p>One daemon thread per watched file, stopped by {@link #close()}.
 */
final class FaultControlFile implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FaultControlFile.class);
    static final long POLL_MILLIS = 10;

    private final Path file;
    private final FaultCommands commands;
    private final Thread thread;
    private volatile boolean closed;
    private long offset;
    private final StringBuilder partial = new StringBuilder();

    FaultControlFile(Path file, FaultCommands commands) {
        this.file = file;
        this.commands = commands;
        this.thread = Thread.ofPlatform().daemon().name("soft-roce-fault-control").start(this::run);
    }

    private void run() {
        while (!closed) {
            try {
                poll();
            } catch (IOException e) {
                LOG.debug("fault control file {}: {}", file, e.toString());
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Applies whatever complete lines were appended since the last poll. */
    void poll() throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        long size = Files.size(file);
        if (size < offset) {
            offset = 0; // truncated or replaced: start over
            partial.setLength(0);
        }
        if (size == offset) {
            return;
        }
        byte[] bytes;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(offset);
            bytes = new byte[(int) Math.min(size - offset, 1 << 20)];
            f.readFully(bytes);
        }
        offset += bytes.length;
        partial.append(new String(bytes, StandardCharsets.UTF_8));
        int nl;
        while ((nl = partial.indexOf("\n")) >= 0) {
            String line = partial.substring(0, nl);
            partial.delete(0, nl + 1);
            try {
                String done = commands.apply(line);
                if (done != null) {
                    LOG.info("fault control: {}", done);
                }
            } catch (RuntimeException e) {
                LOG.warn("fault control file {}: {}", file, e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
