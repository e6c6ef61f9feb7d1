package dev.ibex.cm.buffer;

/**
 * Remote access to a buffer's bytes that must end before the buffer goes back to its pool (a memory window or a
 * region of its own, given to one peer). The buffer knows its exposures: releasing it asks each to end, and it is
 * reused only once all have called {@link Buffer#exposureEnded}. Called on the pool's loop.
 */
public interface BufferExposure {
    /** The buffer was released: end the exposure (asynchronously if need be), then call {@link Buffer#exposureEnded}. */
    void bufferReleased();
}
