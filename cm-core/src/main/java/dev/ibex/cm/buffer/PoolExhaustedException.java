package dev.ibex.cm.buffer;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;

/**
 * Every buffer of a loop's registered pool is posted or held (ENOBUFS): back-pressure for the operation that asked,
 * never a failure of the connection or of others. Wait for buffers ({@link BufferPool#whenFree}), release what the
 * application holds, or raise {@link BufferPool.Options#maxBuffers()}. The reactive {@code send} waits by itself.
 */
public final class PoolExhaustedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    PoolExhaustedException(String pool, int buffers) {
        this(pool + ": all " + buffers + " buffers are posted or held by the application; release received buffers, "
                + "wait, or raise BufferPool.Options.maxBuffers");
    }

    /**
     * With the whole explanation (which pool, what is left, what to do); the errno is {@code ENOBUFS}.
     *
     * @param what the explanation, used as the advice of the message
     */
    public PoolExhaustedException(String what) {
        super("buffer pool", Errno.ENOBUFS, what);
    }
}
