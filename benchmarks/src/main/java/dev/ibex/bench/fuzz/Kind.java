package dev.ibex.bench.fuzz;

import java.util.EnumSet;
import java.util.Set;

/** What is wrong with a hostile packet, and the routes it may take. */
public enum Kind {
    /** Random bytes of a random length (0 to 1,500). */
    GARBAGE(Routes.RAW),
    /** A well-formed packet cut short (its ICRC sometimes recomputed for the shorter length). */
    TRUNCATED(Routes.RAW),
    /** A well-formed packet with a wrong ICRC (flipped, or computed for other addresses). */
    BAD_ICRC(Routes.RAW),
    /** A well-formed packet with one to four bits flipped after its ICRC was computed. */
    BIT_FLIPS(Routes.RAW),
    /** Structure the parser must refuse with a valid ICRC: TVer, pad count, unknown opcode, length, payload. */
    BAD_HEADER(Routes.RAW),
    /** Well-formed but for the P_Key. */
    BAD_PKEY(Routes.RAW),
    /** Well-formed, to QP 0, the multicast QPN, a random QPN or a neighbour of the victim's. */
    WRONG_QP(Routes.RAW),
    /** A UD packet to the victim's RC QP. */
    WRONG_TRANSPORT(Routes.ANY),
    /** Any request opcode, valid fields, a PSN ahead of the one expected (bad keys and lengths included). */
    REQUEST_AHEAD(Routes.ANY),
    /** Any request opcode, a PSN already received (a duplicate; bad keys and lengths included). */
    REQUEST_BEHIND(Routes.ANY),
    /**
     * The expected PSN with a defect the IBA makes every responder refuse whatever state it is in (bad R_Key, a
     * length no packet may have, an opcode out of sequence): ends the connection when on its path.
     */
    REQUEST_EXACT(Routes.ANY),
    /** A response (ACK, NAK, READ response, atomic ACK) for a PSN never sent: dropped and counted. */
    RESPONSE_AHEAD(Routes.ANY),
    /** A response for a PSN acknowledged long ago. */
    RESPONSE_BEHIND(Routes.ANY),
    /** A response for a PSN that may be outstanding: on the path the IBA believes it (it may end the connection). */
    RESPONSE_IN_RANGE(Routes.ANY),
    /** A well-formed CM message (DREQ, DREP, REJ, RTU, MRA) with the connection's communication IDs. */
    CM_FORGED(Routes.MAD),
    /** A MAD to QP1 with random bytes changed, a wrong size or Q_Key. */
    MAD_FUZZED(Routes.MAD);

    private final Set<Route> routes;

    Kind(Set<Route> routes) {
        this.routes = routes;
    }

    /** Whether a packet of this kind may take {@code route}. */
    public boolean takes(Route route) {
        return routes.contains(route);
    }

    /** Whether, on the path, it may legitimately end the connection (an IBA-mandated error or a believed CM message). */
    public boolean lethalOnPath() {
        return this == REQUEST_EXACT || this == RESPONSE_IN_RANGE || this == CM_FORGED || this == MAD_FUZZED;
    }

    private static final class Routes {
        static final Set<Route> RAW = EnumSet.of(Route.FOREIGN_ADDRESS, Route.PEER_OTHER_PORT, Route.ON_PATH_WIRE);
        static final Set<Route> ANY = EnumSet.of(Route.FOREIGN_ADDRESS, Route.PEER_OTHER_PORT, Route.ON_PATH_WIRE,
                Route.ON_PATH_DELIVER);
        static final Set<Route> MAD = EnumSet.of(Route.FOREIGN_ADDRESS, Route.PEER_OTHER_PORT, Route.FOREIGN_CM_PORT,
                Route.ON_PATH_WIRE);
    }
}
