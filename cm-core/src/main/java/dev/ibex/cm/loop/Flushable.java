package dev.ibex.cm.loop;

/**
 * Work batched during a loop turn (sends and receive re-posts) and posted once at its end, one doorbell per
 * batch. Whoever asks for a flush keeps a flag so it is queued at most once per turn.
 */
@FunctionalInterface
public interface Flushable {
    /** Posts what was batched during the turn; runs on the loop thread at the end of the turn. */
    void flush();
}
