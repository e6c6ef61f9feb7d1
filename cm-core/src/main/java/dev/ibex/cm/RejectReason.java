package dev.ibex.cm;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Why an Ibex server rejected a connection request on its own (not by its application's choice), carried in the
 * reject private data so the client can say what happened: a REJECT with reason 28 ("consumer reject") and empty
 * private data tells nothing. The format is {@code "IBEX" 0x01 code} followed by a short UTF-8 text, at most the
 * 148 bytes a reject carries; a peer that is not Ibex sees ordinary private data.
 */
public enum RejectReason {
    /** The server's accept policy failed or threw. */
    POLICY_FAILED(1, "the server's accept policy failed"),
    /** Nobody accepted or rejected the request within the listener's request timeout. */
    NO_ANSWER(2, "the server did not answer the request within its request timeout"),
    /** The server decided to accept but could not (bad accept parameters, no QP, no memory). */
    ACCEPT_FAILED(3, "the server could not accept"),
    /** The server has no receive buffers or queue pairs to spare: try later or elsewhere. */
    NO_RESOURCES(4, "the server has no resources for another connection"),
    /** Too many handshakes in progress at the server (from this address, or in all). */
    OVERLOADED(5, "too many connection requests in progress at the server"),
    /** The listener is closing. */
    CLOSING(6, "the server is shutting down");

    private static final byte[] MAGIC = {'I', 'B', 'E', 'X', 1};
    /** The most private data a reject carries on an RC id. */
    private static final int MAX = 148;

    private final int code;
    private final String description;

    RejectReason(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** {@return the code byte that follows {@code "IBEX" 0x01} in the reject private data} */
    public int code() {
        return code;
    }

    /** {@return a sentence for messages, e.g. "the server did not answer the request within its request timeout"} */
    public String description() {
        return description;
    }

    /**
     * The reject private data naming this reason, with {@code detail} (may be null) cut to fit.
     *
     * @param detail a short text for the client (UTF-8, cut to the 142 bytes left), or {@code null}
     * @return the private data to reject with, at most 148 bytes
     */
    public byte[] encode(String detail) {
        byte[] text = detail == null ? new byte[0] : detail.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX - MAGIC.length - 1);
        byte[] out = Arrays.copyOf(MAGIC, MAGIC.length + 1 + n);
        out[MAGIC.length] = (byte) code;
        System.arraycopy(text, 0, out, MAGIC.length + 1, n);
        return out;
    }

    /**
     * The reason in {@code privateData}, or {@code null} when it is not an Ibex reject.
     *
     * @param privateData a reject's private data, or {@code null}
     * @return the reason it names, or {@code null}
     */
    public static RejectReason of(byte[] privateData) {
        if (privateData == null || privateData.length < MAGIC.length + 1
                || !Arrays.equals(privateData, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return null;
        }
        int c = privateData[MAGIC.length];
        for (RejectReason r : values()) {
            if (r.code == c) {
                return r;
            }
        }
        return null;
    }

    /**
     * The detail text of an Ibex reject (zero padding removed), or "" when none.
     *
     * @param privateData a reject's private data, or {@code null}
     * @return the detail text; empty when there is none or the data is not an Ibex reject
     */
    public static String detail(byte[] privateData) {
        if (of(privateData) == null) {
            return "";
        }
        int end = privateData.length;
        while (end > MAGIC.length + 1 && privateData[end - 1] == 0) {
            end--; // providers pad private data with zeros to the field size
        }
        return new String(privateData, MAGIC.length + 1, end - MAGIC.length - 1, StandardCharsets.UTF_8);
    }
}
