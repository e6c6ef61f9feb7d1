package dev.ibex.bench.faults;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.Operation;
import java.lang.foreign.ValueLayout;

/**
 * A checked stream of one-sided operations on a region the {@link StreamServer} registers and describes in its first
 * message:
 *
 * <ul>
 *   <li>{@link #WRITE}: RDMA WRITE with immediate of {@link Sequenced} record {@code seq} into slot
 *       {@code seq % SLOTS}; the server checks the bytes and acknowledges {@code seq}, which must come back in order;
 *   <li>{@link #READ}: RDMA READ of slot {@code seq % SLOTS}, whose record the server wrote once: the bytes must be
 *       intact, completions in order;
 *   <li>{@link #ATOMIC}: FETCH_AND_ADD 1 on the region's first 8 bytes: the values returned must be 0, 1, 2 …
 *       exactly — an atomic executed twice or lost shows at once.
 * </ul>
 *
 * <p>Threading: callbacks on the connection's loop; counters and outcomes are read from any thread.
 */
public final class RegionClient extends StreamClient {
    public static final int WRITE = 1;
    public static final int READ = 2;
    public static final int ATOMIC = 3;
    /** Slots in the region, and bytes per slot (the largest record). */
    public static final int SLOTS = 16;
    public static final int SLOT = 256;

    private final int kind;
    private final Buffer[] inFlight;
    private RemoteBuffer region;

    /**
     * @param kind {@link #WRITE}, {@link #READ} or {@link #ATOMIC}
     * @param window operations in flight (READ and atomics: at most the connection's initiator depth)
     */
    public RegionClient(int kind, int stream, int window, long limit) {
        super(stream, window, SLOT, limit);
        if (kind < WRITE || kind > ATOMIC || window > SLOTS / 2) {
            throw new IllegalArgumentException("kind " + kind + ", window " + window);
        }
        this.kind = kind;
        this.inFlight = new Buffer[window];
    }

    @Override
    protected int kind() {
        return kind;
    }

    @Override
    protected boolean readyOnEstablished() {
        return false; // the region's descriptor comes first
    }

    @Override
    public void onMessage(Connection c, Buffer m) {
        try {
            if (region == null) {
                region = RemoteBuffer.decode(m.segment(), m.offset());
                start(c);
                return;
            }
            verified(c, m.length() == 8 ? m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, m.offset())
                    : Sequenced.CORRUPT); // a WRITE's acknowledgement
        } finally {
            m.release();
        }
    }

    @Override
    protected boolean post(Connection c, long seq) {
        Buffer b = c.tryAllocate();
        if (b == null) {
            return false;
        }
        long slot = seq % SLOTS;
        switch (kind) {
            case WRITE -> {
                int n = Sequenced.write(b.segment(), 0, stream, seq, SLOT);
                c.writeWithImm(b, 0, n, region, slot * SLOT, (int) seq, seq);
            }
            case READ -> {
                inFlight[(int) (seq % window)] = b;
                c.read(b, 0, Sequenced.length(stream, slot, SLOT), region, slot * SLOT, seq);
            }
            default -> {
                inFlight[(int) (seq % window)] = b;
                c.fetchAndAdd(b, 0, region, 0, 1, seq);
            }
        }
        return true;
    }

    @Override
    public void onComplete(Connection c, Operation op, long seq) {
        super.onComplete(c, op, seq);
        if (op != Operation.READ && op != Operation.FETCH_AND_ADD) {
            return;
        }
        Buffer b = take(seq);
        long got;
        if (op == Operation.READ) {
            long slot = seq % SLOTS;
            got = Sequenced.check(b.segment(), 0, Sequenced.length(stream, slot, SLOT), stream, SLOT) == slot ? seq
                    : Sequenced.CORRUPT;
        } else {
            got = b.segment().get(ValueLayout.JAVA_LONG, 0); // the counter before this add: must be seq
        }
        b.release();
        verified(c, got);
    }

    @Override
    public void onFailed(Connection c, Operation op, long seq, RdmaException e) {
        super.onFailed(c, op, seq, e);
        if (op == Operation.READ || op == Operation.FETCH_AND_ADD) {
            Buffer b = take(seq);
            if (b != null) {
                b.release();
            }
        }
    }

    private Buffer take(long seq) {
        int i = (int) (seq % window);
        Buffer b = inFlight[i];
        inFlight[i] = null;
        return b;
    }
}
