package dev.ibex.bench.fuzz;

import dev.ibex.softroce.mad.CmDrep;
import dev.ibex.softroce.mad.CmDreq;
import dev.ibex.softroce.mad.CmMad;
import dev.ibex.softroce.mad.CmMessage;
import dev.ibex.softroce.mad.CmMessageKind;
import dev.ibex.softroce.mad.CmMra;
import dev.ibex.softroce.mad.CmRej;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.CmRtu;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Bth;
import dev.ibex.softroce.wire.Deth;
import dev.ibex.softroce.wire.Icrc;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.Psn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * Builds hostile RoCEv2 UDP payloads of a {@link Kind} for a {@link Victim}, drawing every choice from one seeded
 * generator so a run repeats. Packets that should pass the ICRC get one computed for the addresses they are sent from,
 * so what stops them is the check that matters (structure, path, PSN, key), not the checksum.
 *
 * <p>PSNs are chosen so that a packet on the connection's path can never be taken as the next message: ahead of the
 * expected PSN by at least {@value #MARGIN}, behind it (a duplicate), or at it only with a defect every responder must
 * refuse. An on-path forger who knows the exact PSN can always inject a well-formed message — RoCE authenticates
 * nothing — so that case proves nothing about Ibex and is not generated.
 *
 * <p>Threading: one thread (the fuzzer's).
 */
final class HostilePackets {
    /** Room for the largest packet (an MTU of payload plus headers) and some oversize ones. */
    static final int MAX_PACKET = 4096 + 256;
    /** How far ahead (or behind) of the victim's PSNs a packet's PSN is kept: more than traffic moves meanwhile. */
    static final int MARGIN = 4096;
    private static final int MAD_SIZE = 256;
    private static final Opcode[] REQUESTS = Arrays.stream(Opcode.values())
            .filter(o -> o.isRequest() && o.transport() == Opcode.Transport.RC).toArray(Opcode[]::new);
    private static final Opcode[] RESPONSES = Arrays.stream(Opcode.values()).filter(Opcode::isResponse)
            .toArray(Opcode[]::new);
    private static final Opcode[] RC = Arrays.stream(Opcode.values())
            .filter(o -> o.transport() == Opcode.Transport.RC).toArray(Opcode[]::new);

    private final RandomGenerator r;
    private final PacketBuilder b = new PacketBuilder();
    private final Icrc icrc = new Icrc();
    private final MemorySegment mad = MemorySegment.ofArray(new byte[MAD_SIZE]);
    private Opcode lastOpcode;
    private boolean aheadResponse;
    private boolean aheadRequest;
    private boolean mayParse;
    private boolean namesConnection;

    HostilePackets(RandomGenerator random) {
        this.r = random;
    }

    /** The opcode of the last packet built ({@code null} for garbage). */
    Opcode lastOpcode() {
        return lastOpcode;
    }

    /**
     * Whether the last packet was built as a response ahead of every PSN sent: a well-formed one the victim must count
     * as invalid; a damaged one ({@link #damaged()}) that still parses — a flip in a bit the ICRC does not cover, a cut
     * that leaves a shorter valid packet — may be counted too.
     */
    boolean aheadResponse() {
        return aheadResponse;
    }

    /**
     * Whether the last packet was a well-formed CM message that a connection's IDs make its own (every kind the
     * generator forges but an MRA or REJ of a REQ, which name only a connection still waiting for its REP).
     */
    boolean namesConnection() {
        return namesConnection;
    }

    /**
     * Whether the last packet was built as a request ahead of the expected PSN: the victim's responder answers it with
     * a PSN-sequence NAK naming the PSN it expects, which an idle peer has not sent yet — one invalid response there.
     */
    boolean aheadRequest() {
        return aheadRequest;
    }

    /** Whether the last packet is a damaged copy of a well-formed one (truncated, flipped, re-keyed …). */
    boolean damaged() {
        return mayParse;
    }

    /**
     * Writes a packet of {@code kind} for {@code v} into {@code buf}, as sent from {@code srcIp:srcPort}.
     *
     * @return its length in bytes
     */
    int write(Kind kind, Victim v, int srcIp, int srcPort, MemorySegment buf) {
        lastOpcode = null;
        aheadResponse = false;
        aheadRequest = false;
        namesConnection = false;
        mayParse = kind == Kind.TRUNCATED || kind == Kind.BIT_FLIPS || kind == Kind.BAD_HEADER || kind == Kind.BAD_PKEY
                || kind == Kind.BAD_ICRC;
        return switch (kind) {
            case GARBAGE -> garbage(buf);
            case TRUNCATED -> truncated(v, srcIp, srcPort, buf);
            case BAD_ICRC -> badIcrc(v, srcIp, srcPort, buf);
            case BIT_FLIPS -> bitFlips(v, srcIp, srcPort, buf);
            case BAD_HEADER -> badHeader(v, srcIp, srcPort, buf);
            case BAD_PKEY -> withIcrc(buf, pKey(buf, anyValid(v, srcIp, srcPort, buf)), v, srcIp, srcPort);
            case WRONG_QP -> wrongQp(v, srcIp, srcPort, buf);
            case WRONG_TRANSPORT -> ud(v.qpn(), v, srcIp, srcPort, buf);
            case REQUEST_AHEAD -> request(pick(REQUESTS), Psn.add(v.rqPsn(), ahead()), v, srcIp, srcPort, buf);
            case REQUEST_BEHIND -> request(pick(REQUESTS), Psn.add(v.rqPsn(), -behind()), v, srcIp, srcPort, buf);
            case REQUEST_EXACT -> refusedAtExactPsn(v, srcIp, srcPort, buf);
            case RESPONSE_AHEAD -> response(Psn.add(v.sqPsn(), r.nextInt(MARGIN, 1 << 22)), v, srcIp, srcPort, buf);
            case RESPONSE_BEHIND -> response(Psn.add(v.sqPsn(), -behind()), v, srcIp, srcPort, buf);
            case RESPONSE_IN_RANGE -> response(Psn.add(v.sqPsn(), -r.nextInt(1, 17)), v, srcIp, srcPort, buf);
            case CM_FORGED -> cm(v, srcIp, srcPort, buf, false);
            case MAD_FUZZED -> cm(v, srcIp, srcPort, buf, true);
        };
    }

    private int ahead() {
        return r.nextInt(MARGIN, 1 << 22);
    }

    private int behind() {
        return r.nextInt(1, 1 << 22);
    }

    private Opcode pick(Opcode[] ops) {
        return ops[r.nextInt(ops.length)];
    }

    // ---- well-formed packets ------------------------------------------------------------------------------

    /** A well-formed RC packet of any kind to the victim, at a PSN that cannot be taken as the next message. */
    private int anyValid(Victim v, int srcIp, int srcPort, MemorySegment buf) {
        return r.nextBoolean() ? request(pick(REQUESTS), Psn.add(v.rqPsn(), r.nextBoolean() ? ahead() : -behind()), v,
                srcIp, srcPort, buf)
                : response(Psn.add(v.sqPsn(), r.nextBoolean() ? r.nextInt(MARGIN, 1 << 22) : -behind()), v, srcIp,
                        srcPort, buf);
    }

    private int request(Opcode op, int psn, Victim v, int srcIp, int srcPort, MemorySegment buf) {
        return request(op, psn, v.qpn(), v, srcIp, srcPort, buf);
    }

    /** A request with random but well-formed fields: payload sized for its position, any keys and lengths. */
    private int request(Opcode op, int psn, int qpn, Victim v, int srcIp, int srcPort, MemorySegment buf) {
        lastOpcode = op;
        aheadRequest = Psn.compare(psn, v.rqPsn()) > 0;
        begin(buf, op, qpn, psn);
        int payload = payloadFor(op, v.mtu());
        fields(op, payload, buf);
        return finish(payload, srcIp, v.localIp(), srcPort, v.port());
    }

    private int response(int psn, Victim v, int srcIp, int srcPort, MemorySegment buf) {
        Opcode op = pick(RESPONSES);
        lastOpcode = op;
        aheadResponse = Psn.compare(psn, v.sqPsn()) >= 0;
        begin(buf, op, v.qpn(), psn);
        int payload = payloadFor(op, v.mtu());
        fields(op, payload, buf);
        return finish(payload, srcIp, v.localIp(), srcPort, v.port());
    }

    private void begin(MemorySegment buf, Opcode op, int qpn, int psn) {
        b.begin(buf, 0, op).destQp(qpn & Bth.QPN_MASK).psn(psn).ackReq(r.nextBoolean())
                .solicitedEvent(r.nextInt(8) == 0).migReq(r.nextInt(8) == 0);
    }

    private int payloadFor(Opcode op, int mtu) {
        if (!op.carriesPayload()) {
            return 0;
        }
        return switch (op.position()) {
            case FIRST, MIDDLE -> mtu;
            case LAST -> 1 + r.nextInt(Math.min(mtu, 256));
            case ONLY -> r.nextInt(8) == 0 ? r.nextInt(mtu + 1) : r.nextInt(Math.min(mtu, 256) + 1);
        };
    }

    /** Extended headers with random values (keys, addresses, lengths, syndromes); the payload is random bytes. */
    private void fields(Opcode op, int payload, MemorySegment s) {
        if (op.hasReth()) {
            int dma = switch (r.nextInt(4)) {
                case 0 -> 0;
                case 1 -> r.nextInt();
                default -> Math.max(payload, 1) + (op.position().isLast() ? 0 : r.nextInt(1 << 16));
            };
            b.reth(r.nextLong(), r.nextInt(), dma);
        }
        if (op.hasAtomicEth()) {
            b.atomicEth(r.nextBoolean() ? r.nextLong() & ~7L : r.nextLong(), r.nextInt(), r.nextLong(), r.nextLong());
        }
        if (op.hasAeth()) {
            b.aeth(syndrome(), r.nextInt(1 << 24));
        }
        if (op.hasAtomicAckEth()) {
            b.atomicAckEth(r.nextLong());
        }
        if (op.hasImmDt()) {
            b.immediate(r.nextInt());
        }
        if (op.hasIeth()) {
            b.ieth(r.nextInt());
        }
        if (op.hasDeth()) {
            b.deth(r.nextBoolean() ? Deth.GSI_QKEY : r.nextInt(), r.nextInt(1 << 24));
        }
        if (payload > 0) {
            long at = b.payloadOffset();
            for (int i = 0; i < payload; i += 8) {
                long word = r.nextLong();
                for (int k = 0; k < 8 && i + k < payload; k++) {
                    s.set(ValueLayout.JAVA_BYTE, at + i + k, (byte) (word >>> (8 * k)));
                }
            }
            b.payloadLength(payload);
        }
    }

    private int syndrome() {
        return switch (r.nextInt(4)) {
            case 0 -> Aeth.ack(r.nextInt(32));
            case 1 -> Aeth.rnrNak(r.nextInt(32));
            case 2 -> Aeth.nak(Aeth.NakCode.values()[r.nextInt(Aeth.NakCode.values().length)]);
            default -> r.nextInt(256); // reserved types and codes
        };
    }

    private int finish(int payload, int srcIp, int dstIp, int srcPort, int dstPort) {
        return b.finishIpv4(srcIp, dstIp, srcPort, dstPort);
    }

    /**
     * The victim's expected PSN with a defect the responder must refuse in any state: a length no packet of that
     * opcode may have, a WRITE continuation without a WRITE (the traffic never writes), or an R_Key nobody was given.
     */
    private int refusedAtExactPsn(Victim v, int srcIp, int srcPort, MemorySegment buf) {
        Opcode op = pick(REQUESTS);
        lastOpcode = op;
        int mtu = v.mtu();
        begin(buf, op, v.qpn(), v.rqPsn());
        int payload = switch (op) {
            // FIRST/MIDDLE must carry exactly an MTU; LAST at least a byte; ONLY at most an MTU (C9-92..94)
            case RC_SEND_FIRST, RC_SEND_MIDDLE -> mtu - 4;
            case RC_SEND_LAST, RC_SEND_LAST_WITH_IMMEDIATE, RC_SEND_LAST_WITH_INVALIDATE -> 0;
            case RC_SEND_ONLY, RC_SEND_ONLY_WITH_IMMEDIATE, RC_SEND_ONLY_WITH_INVALIDATE -> mtu + 4 * (1 + r.nextInt(8));
            // out of sequence: the traffic never writes, so no WRITE is in progress
            case RC_RDMA_WRITE_MIDDLE -> mtu;
            case RC_RDMA_WRITE_LAST, RC_RDMA_WRITE_LAST_WITH_IMMEDIATE -> 1 + r.nextInt(64);
            // a key nobody was given, for a non-empty range
            case RC_RDMA_WRITE_FIRST -> mtu;
            case RC_RDMA_WRITE_ONLY, RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE -> 1 + r.nextInt(64);
            default -> 0; // READ request, atomics
        };
        if (op.hasReth()) {
            int dma = op == Opcode.RC_RDMA_WRITE_FIRST ? 2 * mtu : op.operation() == Opcode.Operation.RDMA_WRITE
                    ? payload : 1 + r.nextInt(1 << 16);
            b.reth(r.nextLong(), r.nextInt(), dma);
        }
        if (op.hasAtomicEth()) {
            b.atomicEth(r.nextLong() & ~7L, r.nextInt(), r.nextLong(), r.nextLong());
        }
        if (op.hasImmDt()) {
            b.immediate(r.nextInt());
        }
        if (op.hasIeth()) {
            b.ieth(r.nextInt());
        }
        if (payload > b.maxPayload()) {
            payload = b.maxPayload() & ~3;
        }
        b.payloadLength(payload);
        return finish(payload, srcIp, v.localIp(), srcPort, v.port());
    }

    private int ud(int qpn, Victim v, int srcIp, int srcPort, MemorySegment buf) {
        Opcode op = r.nextBoolean() ? Opcode.UD_SEND_ONLY : Opcode.UD_SEND_ONLY_WITH_IMMEDIATE;
        lastOpcode = op;
        begin(buf, op, qpn, r.nextInt(1 << 24));
        int payload = r.nextInt(257);
        fields(op, payload, buf);
        return finish(payload, srcIp, v.localIp(), srcPort, v.port());
    }

    // ---- malformed packets --------------------------------------------------------------------------------

    private int garbage(MemorySegment buf) {
        int n = r.nextInt(8) == 0 ? r.nextInt(16) : r.nextInt(1501);
        for (int i = 0; i < n; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        if (n >= 1 && r.nextBoolean()) {
            buf.set(ValueLayout.JAVA_BYTE, 0, (byte) pick(RC).code()); // looks like a BTH
        }
        return n;
    }

    private int truncated(Victim v, int srcIp, int srcPort, MemorySegment buf) {
        int n = anyValid(v, srcIp, srcPort, buf);
        int cut = r.nextInt(n);
        if (cut >= Bth.SIZE + Icrc.SIZE && r.nextBoolean()) {
            icrc.writeIpv4(srcIp, v.localIp(), srcPort, v.port(), buf, 0, cut);
        }
        return cut;
    }

    private int badIcrc(Victim v, int srcIp, int srcPort, MemorySegment buf) {
        int n = anyValid(v, srcIp, srcPort, buf);
        if (r.nextBoolean()) {
            long at = n - Icrc.SIZE;
            int stored = buf.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            buf.set(ValueLayout.JAVA_INT_UNALIGNED, at, stored ^ (1 << r.nextInt(32)));
        } else { // right for other addresses or ports
            icrc.writeIpv4(srcIp ^ (1 << r.nextInt(8)), v.localIp(), srcPort, v.port() ^ (1 + r.nextInt(255)), buf, 0,
                    n);
        }
        return n;
    }

    private int bitFlips(Victim v, int srcIp, int srcPort, MemorySegment buf) {
        int n = anyValid(v, srcIp, srcPort, buf);
        int flips = 1 + r.nextInt(4);
        for (int i = 0; i < flips; i++) {
            int at = r.nextInt(n);
            byte x = buf.get(ValueLayout.JAVA_BYTE, at);
            buf.set(ValueLayout.JAVA_BYTE, at, (byte) (x ^ (1 << r.nextInt(8))));
        }
        return n;
    }

    private int badHeader(Victim v, int srcIp, int srcPort, MemorySegment buf) {
        int n = anyValid(v, srcIp, srcPort, buf);
        switch (r.nextInt(5)) {
            case 0 -> Bth.transportVersion(buf, 0, 1 + r.nextInt(15));
            case 1 -> Bth.padCount(buf, 0, 1 + r.nextInt(3)); // on a packet without room or not the last
            case 2 -> {
                int code;
                do {
                    code = r.nextInt(256);
                } while (Opcode.of(code) != null);
                Bth.opcode(buf, 0, code); // UC, RD, XRC, reserved
            }
            case 3 -> n += 1 + r.nextInt(3); // not a multiple of 4
            default -> n += 4 * (1 + r.nextInt(16)); // payload where none may be, or pad beyond it
        }
        return withIcrc(buf, n, v, srcIp, srcPort);
    }

    private int pKey(MemorySegment buf, int n) {
        int key;
        do {
            key = r.nextInt(1 << 16);
        } while (key == Bth.DEFAULT_PKEY);
        Bth.pKey(buf, 0, key);
        return n;
    }

    private int withIcrc(MemorySegment buf, int n, Victim v, int srcIp, int srcPort) {
        if (n >= Icrc.SIZE) {
            icrc.writeIpv4(srcIp, v.localIp(), srcPort, v.port(), buf, 0, n);
        }
        return n;
    }

    private int wrongQp(Victim v, int srcIp, int srcPort, MemorySegment buf) {
        int qpn = switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> Bth.MULTICAST_QPN;
            case 2 -> (v.qpn() + (r.nextBoolean() ? 1 : -1)) & Bth.QPN_MASK;
            default -> r.nextInt(1 << 24);
        };
        return request(pick(REQUESTS), r.nextInt(1 << 24), qpn, v, srcIp, srcPort, buf);
    }

    // ---- CM ------------------------------------------------------------------------------------------------

    /** A CM message to the victim's QP1, as its peer would send it: the connection's IDs, right or fuzzed. */
    private int cm(Victim v, int srcIp, int srcPort, MemorySegment buf, boolean fuzz) {
        int from = v.remoteCommId(); // the peer's id is the message's "local" one
        int to = v.localCommId();
        Octets none = Octets.EMPTY;
        CmMessage m = switch (r.nextInt(5)) {
            case 0 -> new CmDreq(from, to, v.qpn(), none);
            case 1 -> new CmDrep(from, to, none);
            case 2 -> new CmRej(from, to, CmMessageKind.values()[r.nextInt(3)],
                    r.nextBoolean() ? CmRejectReason.CONSUMER_DEFINED : CmRejectReason.STALE_CONN, none, none);
            case 3 -> new CmRtu(from, to, none);
            default -> new CmMra(from, to, CmMessageKind.values()[r.nextInt(3)], r.nextInt(32), none);
        };
        // an MRA or REJ of a REQ names only a connection still waiting for its REP: the CM matches it to none
        namesConnection = !fuzz && !(m instanceof CmMra mra && mra.messageMraed() == CmMessageKind.REQ)
                && !(m instanceof CmRej rej && rej.messageRejected() == CmMessageKind.REQ);
        CmMad.send(r.nextLong(), m).encode(mad, 0);
        int size = MAD_SIZE;
        int qkey = Deth.GSI_QKEY;
        if (fuzz) {
            int changes = 1 + r.nextInt(8);
            for (int i = 0; i < changes; i++) {
                mad.set(ValueLayout.JAVA_BYTE, r.nextInt(MAD_SIZE), (byte) r.nextInt());
            }
            switch (r.nextInt(6)) {
                case 0 -> size = r.nextInt(MAD_SIZE) & ~3;
                case 1 -> qkey = r.nextInt();
                default -> { }
            }
        }
        lastOpcode = Opcode.UD_SEND_ONLY;
        b.begin(buf, 0, Opcode.UD_SEND_ONLY).destQp(Bth.GSI_QPN).psn(r.nextInt(1 << 24)).deth(qkey, Bth.GSI_QPN);
        MemorySegment.copy(mad, 0, buf, b.payloadOffset(), size);
        b.payloadLength(size);
        return b.finishIpv4(srcIp, v.localIp(), srcPort, v.port());
    }
}
