package dev.ibex.cm.reactive;

import java.lang.foreign.MemorySegment;

/**
 * A payload that writes itself into registered memory and is told when Ibex is done with it: the way to send a
 * buffer another library owns and reference-counts (a Netty {@code ByteBuf}, a pooled array) without an
 * intermediate copy or guessing when the send has taken the bytes.
 *
 * <p>{@code send}/{@code write} call {@link #copyTo} once, on the endpoint's loop, when the payload is posted, and
 * {@link #release()} right after it; a payload that will never be posted (the operation was cancelled or failed,
 * the endpoint closed, no registered buffer was free) gets only {@link #release()}. So {@code release()} runs
 * exactly once whatever happens, and never before {@code copyTo} returned.
 *
 * <p><b>Threading.</b> {@link #length()} and {@link #copyTo} run on the endpoint's loop and must not block;
 * {@link #release()} may run on any thread.
 */
public interface ReleasablePayload {

    /**
     * The number of bytes {@link #copyTo} writes.
     *
     * @return the payload's length in bytes, at most what the operation can carry
     */
    int length();

    /**
     * Writes exactly {@link #length()} bytes to {@code target} (a slice of registered memory of that size).
     *
     * @param target registered memory of exactly {@link #length()} bytes, valid only during the call
     */
    void copyTo(MemorySegment target);

    /** Ibex no longer needs the payload: it was copied, or it will not be sent. Called exactly once. */
    void release();
}
