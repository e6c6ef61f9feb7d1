package dev.ibex.bench.report;

import picocli.CommandLine;

/**
 * How every harness runs its command line (picocli): {@code --help}, typed options (enums in any case), and the
 * exit status {@value #OK} when every target is met, {@value #MISSED} when one is missed or the run failed (picocli
 * prints the exception), {@value #USAGE} on bad usage (picocli prints what was wrong and the usage).
 *
 * <p><b>Threading.</b> Stateless.
 */
public final class Cli {
    /** Every target met. */
    public static final int OK = 0;
    /** A target missed, or the run failed. */
    public static final int MISSED = 1;
    /** Bad usage: an unknown option, a value of the wrong type, a missing argument. */
    public static final int USAGE = 2;

    private Cli() {}

    /** Parses {@code args} into {@code command} and runs it; returns the exit status. */
    public static int execute(Object command, String... args) {
        return commandLine(command).execute(args);
    }

    /** The picocli command line every harness uses for {@code command} (@Command-annotated, a Callable). */
    public static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true);
        cl.getCommandSpec().exitCodeOnInvalidInput(USAGE).exitCodeOnExecutionException(MISSED);
        return cl;
    }

    /** {@code ok ? OK : MISSED}. */
    public static int status(boolean ok) {
        return ok ? OK : MISSED;
    }
}
