package dev.ibex.cm.buffer;

/**
 * A buffer the application holds and has not released, with the stack of where it was acquired or handed over
 * (recorded only when the pool tracks leaks).
 *
 * @param index the buffer's index in its pool ({@link Buffer#index()})
 * @param pool the pool's name, e.g. {@code "pool[mlx5_0, 8192 B]"}
 * @param acquiredAt where it was acquired or received, or {@code null} when the pool does not track leaks
 */
public record BufferLeak(int index, String pool, Throwable acquiredAt) {
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("buffer ").append(index).append(" of ").append(pool)
                .append(" was never released");
        if (acquiredAt != null) {
            sb.append("; acquired at:");
            for (StackTraceElement e : acquiredAt.getStackTrace()) {
                sb.append("\n\tat ").append(e);
            }
        }
        return sb.toString();
    }
}
