package dev.ibex.samples.manual;

import dev.ibex.cm.RdmaException;

/**
 * A verb of the chapter 9 programs failed: its {@code VERB_ERR} line ({@code "%s returned %d errno %d"}) is the
 * message; the program returns {@code ret}.
 */
final class VerbError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int ret;

    VerbError(String verb, int ret, int errno) {
        this(null, verb, ret, errno);
    }

    /** With a line printed before the {@code VERB_ERR} line ({@code before} may be {@code null}). */
    VerbError(String before, String verb, int ret, int errno) {
        super((before == null ? "" : before + "\n") + verb + " returned " + ret + " errno " + errno, null, false,
                false);
        this.ret = ret;
    }

    /** The return value the program ends with. */
    int ret() {
        return ret;
    }

    /** {@code VERB_ERR(verb, -1)} for a refused verb, with its errno. */
    static VerbError of(String verb, RuntimeException e) {
        return new VerbError(verb, -1, e instanceof RdmaException r ? r.errnoValue() : 0);
    }

    /** Runs {@code step}; a refusal becomes {@code VERB_ERR(verb, -1)}. */
    static <T> T call(String verb, java.util.function.Supplier<T> step) {
        try {
            return step.get();
        } catch (SyncCm.Unexpected | Deadline.Expired e) {
            throw e;
        } catch (RuntimeException e) {
            throw of(verb, e);
        }
    }

    /** {@link #call} for a step without a result. */
    static void run(String verb, Runnable step) {
        call(verb, () -> {
            step.run();
            return null;
        });
    }
}
