package dev.ibex.cm.endpoint;

import dev.ibex.cm.spi.CmId;
import java.util.Arrays;

/**
 * What an Ibex end says about flow control in the last 8 bytes of its connect or accept private data: "I take my
 * receives from a shared receive queue; you may send me {@code grant} messages, and I return credits as my
 * application consumes them". An end whose peer says nothing (a C program, an Ibex end in
 * {@link ReceiveMode#WINDOW}) gives the connection a receive window of its own instead.
 *
 * <pre>
 *  field end - 8: 'I' 'B' 'X' version(1) flags(1) grant(16, big-endian) maxMessageLog2(1)
 * </pre>
 *
 * {@code maxMessageLog2} (with flag {@code LARGE}): "I reassemble messages of several buffers up to
 * 2<sup>n</sup> bytes" ({@link ConnectionOptions#maxMessageSize()} rounded down to a power of two); 0, as ends before
 * large messages wrote, means one buffer per message. Flag {@code RENDEZVOUS} (only with {@code LARGE}): "I read
 * large messages from a descriptor and send them so" ({@link Rendezvous}); both ends must say it for it to be used.
 * Flag {@code RIDE}: "credits may ride in messages": a SEND with bytes and immediate data {@code 0xC5xxxxxx} is a
 * message without immediate data that also returns {@code xxxxxx} credits ({@link Credits}); when both ends say it,
 * neither lets its application send immediate data with the top byte 0xC5, so the value is never ambiguous.
 *
 * The trailer sits at the end of the field the CM zero-pads (56 bytes on connect, 196 on accept), so a program that
 * reads its own data from the start never sees it; the application's share shrinks by 8 bytes.
 */
record CreditOffer(int grant, int maxMessageLog2, boolean rendezvous, boolean creditsRide) {
    static final int SIZE = 8;
    private static final byte VERSION = 1;
    private static final byte FLAG_CREDITS = 1;
    private static final byte FLAG_LARGE = 2;
    /** "I take messages by rendezvous (READ from a descriptor) and send them so" (see {@link Rendezvous}). */
    private static final byte FLAG_RENDEZVOUS = 4;
    /** "Credits may ride in messages" (see {@link Credits}). */
    private static final byte FLAG_RIDE = 8;
    /** The most private data an application may send with a connect when Ibex adds its offer. */
    static final int MAX_CONNECT_DATA = CmId.MAX_CONNECT_PRIVATE_DATA_TCP - SIZE;
    /** The most private data an application may send with an accept when Ibex adds its offer. */
    static final int MAX_ACCEPT_DATA = CmId.MAX_ACCEPT_PRIVATE_DATA - SIZE;

    CreditOffer {
        if (grant < 1 || grant > 0xFFFF) {
            throw new IllegalArgumentException("a credit grant is 1..65535 messages, got " + grant);
        }
        if (maxMessageLog2 < 0 || maxMessageLog2 > 30) {
            throw new IllegalArgumentException("maxMessageLog2 is 0..30, got " + maxMessageLog2);
        }
    }

    /**
     * An offer of {@code grant} credits and messages up to {@code maxMessageSize} bytes, saying whether this end speaks
     * the rendezvous (only with large messages) and whether credits may ride in messages.
     */
    static CreditOffer of(int grant, int maxMessageSize, boolean rendezvous, boolean creditsRide) {
        int log2 = 31 - Integer.numberOfLeadingZeros(maxMessageSize);
        return new CreditOffer(grant, log2, rendezvous && log2 > 0, creditsRide);
    }

    /** The largest message the offering end reassembles, or 0 when it takes one buffer per message. */
    int maxMessageSize() {
        return maxMessageLog2 == 0 ? 0 : 1 << maxMessageLog2;
    }

    /** {@code data} (the application's) followed, at the end of a {@code field}-byte field, by the offer. */
    byte[] append(byte[] data, int field) {
        if (data.length > field - SIZE) {
            throw new IllegalArgumentException("with shared receives Ibex uses the last " + SIZE + " bytes of the "
                    + "private data: at most " + (field - SIZE) + " bytes are left, got " + data.length
                    + " (ConnectionOptions.withReceiveMode(WINDOW) leaves all " + field + ")");
        }
        byte[] out = Arrays.copyOf(data, field);
        int o = field - SIZE;
        out[o] = 'I';
        out[o + 1] = 'B';
        out[o + 2] = 'X';
        out[o + 3] = VERSION;
        out[o + 4] = (byte) (FLAG_CREDITS | (maxMessageLog2 > 0 ? FLAG_LARGE : 0)
                | (rendezvous ? FLAG_RENDEZVOUS : 0) | (creditsRide ? FLAG_RIDE : 0));
        out[o + 5] = (byte) (grant >>> 8);
        out[o + 6] = (byte) grant;
        out[o + 7] = (byte) maxMessageLog2;
        return out;
    }

    /** The offer at the end of {@code privateData}, or {@code null} when the peer made none. */
    static CreditOffer of(byte[] privateData) {
        if (privateData == null || privateData.length < SIZE) {
            return null;
        }
        int o = privateData.length - SIZE;
        if (privateData[o] != 'I' || privateData[o + 1] != 'B' || privateData[o + 2] != 'X'
                || privateData[o + 3] != VERSION || (privateData[o + 4] & FLAG_CREDITS) == 0) {
            return null;
        }
        int grant = (privateData[o + 5] & 0xFF) << 8 | (privateData[o + 6] & 0xFF);
        int log2 = (privateData[o + 4] & FLAG_LARGE) != 0 ? privateData[o + 7] & 0xFF : 0;
        boolean rendezvous = log2 > 0 && (privateData[o + 4] & FLAG_RENDEZVOUS) != 0;
        boolean ride = (privateData[o + 4] & FLAG_RIDE) != 0;
        return grant == 0 ? null : new CreditOffer(grant, log2 > 30 ? 30 : log2, rendezvous, ride);
    }

    /** {@code privateData} without an offer at its end (what the application sent); the same array when none. */
    static byte[] strip(byte[] privateData) {
        return of(privateData) == null ? privateData : Arrays.copyOf(privateData, privateData.length - SIZE);
    }
}
