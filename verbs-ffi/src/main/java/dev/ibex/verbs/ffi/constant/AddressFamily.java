package dev.ibex.verbs.ffi.constant;

/**
 * Socket address families used in {@code sockaddr} and {@code rdma_addrinfo.ai_family}.
 *
 * <p>Values of {@code AF_* address families}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class AddressFamily {
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    public static final int AF_IB = 27;

    private AddressFamily() {
    }
}
