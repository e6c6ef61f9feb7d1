package dev.ibex.cm.endpoint;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;

/**
 * A message of several buffers on the wire, and its reassembly at the receiver (between two Ibex ends that offered
 * large messages in their {@link CreditOffer}). The message of {@code n} buffers goes out as {@code n} SENDs back
 * to back — nothing else of the connection's SENDs comes between them ({@link SendBacklog} keeps the order):
 *
 * <ul>
 *   <li>the first: SEND with immediate data {@code 0xC6 << 24 | (n - 1)}, i.e. how many fragments follow;
 *   <li>the others: plain SENDs; the last one carries the application's immediate data, if any.
 * </ul>
 *
 * A message of any size takes one credit, as a message of one buffer does: the sender spends it when the message is
 * accepted, the receiver returns it when the application releases the message. The other fragments take receives
 * from the receiver's shared queue without a credit — the message being assembled, bounded by the receiver's
 * maximum message size, is what they hold — and, at the sender, send-queue slots of their own (the message's last
 * part takes the one slot the application was promised). So an application may not send a message of one buffer with immediate data whose top byte is
 * {@code 0xC6} (nor {@code 0xC7}, kept for the rendezvous): the receiver would take it for a first fragment.
 * One reassembly per connection (RC delivers in order). Loop-confined.
 */
final class MessageFragments {
    static final int FRAGMENT_TAG = 0xC6;
    static final int RENDEZVOUS_TAG = 0xC7;

    private BufferList assembling;
    private int remaining;
    private long bytes;

    /** Whether a message's immediate data is Ibex's own on a connection with large messages. */
    static boolean isReserved(int imm) {
        int top = imm >>> 24;
        return top == FRAGMENT_TAG || top == RENDEZVOUS_TAG;
    }

    static int firstImm(int fragments) {
        return FRAGMENT_TAG << 24 | (fragments - 1);
    }

    /** Whether a receive starts a message of several buffers. */
    static boolean isFirst(boolean withImm, int imm, int length) {
        return withImm && imm >>> 24 == FRAGMENT_TAG && length > 0;
    }

    /** Whether a message is being assembled (the next receive belongs to it). */
    boolean inProgress() {
        return assembling != null;
    }

    /** Starts a message whose first fragment carried {@code imm}; false when the header is malformed. */
    boolean start(int imm) {
        int following = imm & 0xFF_FFFF;
        if (following == 0) {
            return false;
        }
        assembling = new BufferList(Math.min(following + 1, 256));
        remaining = following + 1;
        bytes = 0;
        return true;
    }

    /** Bytes the message would have with {@code length} more. */
    long bytesWith(int length) {
        return bytes + length;
    }

    /** Whether the next fragment is the last. */
    boolean nextIsLast() {
        return remaining == 1;
    }

    /**
     * Adds a delivered fragment; returns the whole message when it was the last (its immediate data set from it),
     * else {@code null}.
     */
    BufferList add(Buffer b, int length, boolean withImm, int imm) {
        assembling.add(b, 0, length);
        bytes += length;
        if (--remaining > 0) {
            return null;
        }
        BufferList m = assembling;
        assembling = null;
        m.immData(withImm, imm);
        return m;
    }

    /** Teardown or a protocol error: the fragments received so far go back. */
    void abandon() {
        BufferList m = assembling;
        assembling = null;
        if (m != null) {
            m.release();
        }
    }
}
