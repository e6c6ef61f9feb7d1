package dev.ibex.softroce.cm;

import java.net.InetAddress;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Fault hooks of the RDMA CM for what a UDP provider cannot observe on its own: ARP never answering (address
 * resolution times out with ADDR_ERROR -ETIMEDOUT after the caller's timeout) and a failing path query
 * (ROUTE_ERROR). MAD loss is injected at the MAD port instead. Thread-safe.
 */
public final class CmFaults {
    private volatile Predicate<InetAddress> addrTimeout = a -> false;
    private volatile Predicate<InetAddress> routeError = a -> false;
    private volatile int routeErrorStatus = -110;

    /** Address resolution of destinations matching {@code p} ends in ADDR_ERROR -ETIMEDOUT after its timeout. */
    public void addrTimeout(Predicate<InetAddress> p) {
        addrTimeout = Objects.requireNonNull(p);
    }

    /** Route resolution to destinations matching {@code p} ends in ROUTE_ERROR with {@code status}. */
    public void routeError(Predicate<InetAddress> p, int status) {
        routeError = Objects.requireNonNull(p);
        routeErrorStatus = status;
    }

    /** Removes every fault. */
    public void clear() {
        addrTimeout = a -> false;
        routeError = a -> false;
    }

    boolean addrTimesOut(InetAddress destination) {
        return addrTimeout.test(destination);
    }

    boolean routeFails(InetAddress destination) {
        return routeError.test(destination);
    }

    int routeErrorStatus() {
        return routeErrorStatus;
    }
}
