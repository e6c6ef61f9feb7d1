package dev.ibex.cm.endpoint;

import dev.ibex.cm.buffer.Buffer;
import java.util.Arrays;

/**
 * SENDs of a connection waiting for send-queue slots and credits, in order: the fragments of a message of several
 * buffers (see {@link MessageFragments}) that did not fit at once, and every SEND posted after them, which may not
 * overtake them. Each entry's buffer is already lent (the caller gave it up). A ring that doubles when full, so it
 * allocates only while it grows. Loop-confined.
 */
final class SendBacklog {
    /** A whole message of one buffer. */
    static final byte SINGLE = 0;
    /** The first fragment of a message of several buffers. */
    static final byte FIRST = 1;
    static final byte MIDDLE = 2;
    /** The last fragment: it carries the application's attachment (and immediate data). */
    static final byte LAST = 3;
    /** A message going by rendezvous: its turn posts binds and descriptor (see {@link Rendezvous#advance}). */
    static final byte RENDEZVOUS = 4;

    private Buffer[] buffers = new Buffer[16];
    private int[] offsets = new int[16];
    private int[] lengths = new int[16];
    private int[] imms = new int[16];
    private byte[] roles = new byte[16];
    private Operation[] ops = new Operation[16];
    private long[] attachments = new long[16];
    private int head;
    private int size;
    private int messages;

    boolean isEmpty() {
        return size == 0;
    }

    /** Messages (not fragments) waiting, whole or in part. */
    int messages() {
        return messages;
    }

    void add(byte role, Operation op, Buffer b, int offset, int length, int imm, long attachment) {
        if (size == buffers.length) {
            grow();
        }
        int k = (head + size) & (buffers.length - 1);
        buffers[k] = b;
        offsets[k] = offset;
        lengths[k] = length;
        imms[k] = imm;
        roles[k] = role;
        ops[k] = op;
        attachments[k] = attachment;
        size++;
        if (role == SINGLE || role == FIRST || role == RENDEZVOUS) {
            messages++;
        }
    }

    byte role() {
        return roles[head];
    }

    Operation op() {
        return ops[head];
    }

    Buffer buffer() {
        return buffers[head];
    }

    int offset() {
        return offsets[head];
    }

    int length() {
        return lengths[head];
    }

    int imm() {
        return imms[head];
    }

    long attachment() {
        return attachments[head];
    }

    /** Drops the head entry (posted, or failed). */
    void poll() {
        byte role = roles[head];
        buffers[head] = null;
        ops[head] = null;
        head = (head + 1) & (buffers.length - 1);
        size--;
        if (role == SINGLE || role == LAST || role == RENDEZVOUS) {
            messages--;
        }
    }

    private void grow() {
        int n = buffers.length;
        Buffer[] b = new Buffer[n * 2];
        int[] o = new int[n * 2];
        int[] l = new int[n * 2];
        int[] im = new int[n * 2];
        byte[] r = new byte[n * 2];
        Operation[] op = new Operation[n * 2];
        long[] a = new long[n * 2];
        for (int i = 0; i < size; i++) {
            int k = (head + i) & (n - 1);
            b[i] = buffers[k];
            o[i] = offsets[k];
            l[i] = lengths[k];
            im[i] = imms[k];
            r[i] = roles[k];
            op[i] = ops[k];
            a[i] = attachments[k];
        }
        buffers = b;
        offsets = o;
        lengths = l;
        imms = im;
        roles = r;
        ops = op;
        attachments = a;
        head = 0;
    }

    @Override
    public String toString() {
        return "SendBacklog[" + size + " sends, " + messages + " messages" + (size == 0 ? "" : ", head "
                + Arrays.asList(ops[head], roles[head])) + "]";
    }
}
