package dev.ibex.softroce.wire;

/** The RoCE pad rule: 0–3 zero bytes after the payload so that the payload ends on a 4-byte boundary. */
public final class Padding {
    private Padding() {
    }

    /** PadCnt for a payload of {@code payloadLength} bytes: {@code (-length) & 3}. */
    public static int count(int payloadLength) {
        return -payloadLength & 3;
    }
}
