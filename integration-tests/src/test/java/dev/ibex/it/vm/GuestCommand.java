package dev.ibex.it.vm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a tool (ibv_devinfo, rping …) with a time bound and captures its combined output.
 *
 * @param command  what ran
 * @param exitCode its exit status
 * @param output   stdout and stderr, interleaved
 */
public record GuestCommand(List<String> command, int exitCode, String output) {

    /**
     * Runs {@code command} (at most 30 s) and fails the test, with the command's output, unless it exits with 0.
     *
     * @param command the command and its arguments
     */
    public static void succeed(String... command) {
        GuestCommand c = run(Duration.ofSeconds(30), command);
        org.assertj.core.api.Assertions.assertThat(c.exitCode()).as(String.join(" ", command) + ": " + c.output())
                .isZero();
    }

    /**
     * Runs {@code command} and waits at most {@code limit}.
     *
     * @throws IllegalStateException if it cannot start or does not finish in time (it is killed)
     */
    public static GuestCommand run(Duration limit, String... command) {
        Path out = null;
        try {
            // a file, not a pipe: nothing can block on a full pipe while we wait
            out = Files.createTempFile("guest-command", ".log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .start();
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + limit
                        + "; output so far:\n" + Files.readString(out, StandardCharsets.UTF_8));
            }
            return new GuestCommand(List.of(command), p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a temp file in the VM's tmpfs; it goes away with the VM
                }
            }
        }
    }
}
