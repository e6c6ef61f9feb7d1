package dev.ibex.softroce.transport;

/**
 * One of a QP's {@code max_dest_rd_atomic} responder resources (rxe {@code resp_res}): what a READ or atomic
 * request asked for, kept so that a duplicate of it can be answered again — a READ by re-reading the memory, an
 * atomic by resending the original value it returned (never by executing it twice).
 */
final class ResponderResource {
    static final int NONE = 0;
    static final int READ = 1;
    static final int ATOMIC = 2;

    int type = NONE;
    boolean replay;
    int firstPsn;
    int lastPsn;
    int curPsn;
    /** READ: next address to read, the request's address and length, its rkey. */
    long va;
    long vaOrg;
    long resid;
    long length;
    int rkey;
    /** READ: whether the first response packet went out (FIRST/ONLY vs MIDDLE/LAST). */
    boolean started;
    /** ATOMIC: the value the target held before the operation. */
    long original;
}
