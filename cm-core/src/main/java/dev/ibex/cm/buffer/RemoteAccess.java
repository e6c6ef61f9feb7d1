package dev.ibex.cm.buffer;

import dev.ibex.cm.spi.Access;
import java.util.Set;

/**
 * What a peer may do with memory it was given ({@code IBV_ACCESS_REMOTE_READ}, {@code _REMOTE_WRITE},
 * {@code _REMOTE_ATOMIC}): the rights of an exposure. Grant the least the protocol needs: READ for a buffer the peer
 * fetches, WRITE for one it fills, ATOMIC only for a counter or lock word.
 */
public enum RemoteAccess {
    /** RDMA READ from the memory. */
    READ(Access.REMOTE_READ),
    /** RDMA WRITE (and WRITE with immediate) into the memory. */
    WRITE(Access.REMOTE_WRITE),
    /** Atomic compare-and-swap and fetch-and-add on 8-byte aligned words of the memory. */
    ATOMIC(Access.REMOTE_ATOMIC);

    private final Access access;

    RemoteAccess(Access access) {
        this.access = access;
    }

    /** {@return the verbs access flag} */
    public Access access() {
        return access;
    }

    /**
     * The {@link Access} bits of {@code rights}.
     *
     * @param rights the rights to grant, at least one
     * @return the OR of their {@link Access#bit()} values
     * @throws IllegalArgumentException when {@code rights} is empty (an exposure that grants nothing is a mistake)
     */
    public static int mask(Set<RemoteAccess> rights) {
        if (rights == null || rights.isEmpty()) {
            throw new IllegalArgumentException("an exposure grants at least one right: READ, WRITE or ATOMIC");
        }
        int m = 0;
        for (RemoteAccess r : rights) {
            m |= r.access.bit();
        }
        return m;
    }
}
