package dev.ibex.softroce.mad;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.mad.SamplePackets.Sample;
import dev.ibex.softroce.wire.Icrc;
import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seeded mutation fuzzing of every parser: valid packets of every type with bit flips, byte overwrites,
 * truncations, extensions and pure noise go through the RoCE parser (with and without a repaired ICRC),
 * the QP1 decoder, the MAD/CM decoders and the cma_hdr decoder. The only acceptable outcomes are success
 * and {@link MalformedPacketException}.
 */
class ParserFuzzTest {
    private static final Logger LOG = LoggerFactory.getLogger(ParserFuzzTest.class);
    private static final long SEED = 0x1BE7_F022L;
    private static final int ITERATIONS = 100_000;

    private final RocePacket packet = new RocePacket();
    private final Icrc icrc = new Icrc();
    private final Map<MalformedPacketException.Reason, Integer> refusals =
            new EnumMap<>(MalformedPacketException.Reason.class);
    private int accepted, decodedMads;

    @Test
    void everyParserEitherSucceedsOrThrowsMalformedPacketException() {
        RandomGenerator rnd = RandomGeneratorFactory.of("L64X128MixRandom").create(SEED);
        List<Sample> samples = SamplePackets.all();
        byte[] work = new byte[2048];
        MemorySegment seg = MemorySegment.ofArray(work);
        long start = System.nanoTime();
        for (int i = 0; i < ITERATIONS; i++) {
            Sample s = samples.get(rnd.nextInt(samples.size()));
            int len = mutate(rnd, s.payload(), work);
            boolean repairIcrc = rnd.nextBoolean() && len >= 16;
            if (repairIcrc) { // let mutated packets past the ICRC so the deeper checks see them
                icrc.writeIpv4(s.srcIp(), s.dstIp(), s.srcPort(), s.dstPort(), seg, 0, len);
            }
            try {
                exercise(seg, len, s, CmAttribute.values()[rnd.nextInt(CmAttribute.values().length)]);
            } catch (RuntimeException | Error e) {
                throw new AssertionError("iteration " + i + " (seed " + SEED + ", sample " + s + ") threw " + e
                        + " on " + HexFormat.of().formatHex(work, 0, Math.min(len, 320)), e);
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        LOG.info("{} fuzz iterations in {} ms: {} packets accepted, {} MADs decoded, refusals {}", ITERATIONS, millis,
                accepted, decodedMads, refusals);
        assertThat(accepted).as("some mutants are still valid packets").isPositive();
        assertThat(decodedMads).as("some mutated MADs still decode").isPositive();
        assertThat(refusals).containsKeys(MalformedPacketException.Reason.BAD_ICRC,
                MalformedPacketException.Reason.TRUNCATED, MalformedPacketException.Reason.UNKNOWN_OPCODE,
                MalformedPacketException.Reason.BAD_FIELD);
    }

    private void exercise(MemorySegment seg, int len, Sample s, CmAttribute attribute) {
        try {
            packet.parseIpv4(seg, 0, len, s.srcIp(), s.dstIp(), s.srcPort(), s.dstPort());
            accepted++;
            readEverything(packet);
            if (Qp1.isQp1(packet)) {
                Qp1.decode(packet);
                decodedMads++;
            }
        } catch (MalformedPacketException e) {
            refusals.merge(e.reason(), 1, Integer::sum);
        }
        try { // the structural parser alone, whatever the ICRC
            packet.wrap(seg, 0, len);
            readEverything(packet);
        } catch (MalformedPacketException e) {
            refusals.merge(e.reason(), 1, Integer::sum);
        }
        // the MAD decoders straight on the bytes where a QP1 packet carries them, ICRC or not
        try {
            CmMad mad = CmMad.decode(seg.asSlice(0, len), Qp1.MAD_OFFSET);
            decodedMads++;
            if (mad.message() instanceof CmReq req) {
                CmaHeader.decode(req.privateData());
            } else if (mad.message() instanceof CmSidrReq sidr) {
                CmaHeader.decode(sidr.privateData());
            }
        } catch (MalformedPacketException e) {
            refusals.merge(e.reason(), 1, Integer::sum);
        }
        try { // the bytes read as another CM message than their header claims
            CmMessage.decode(attribute, seg.asSlice(0, len), Qp1.MAD_OFFSET + MadHeader.SIZE);
        } catch (MalformedPacketException e) {
            refusals.merge(e.reason(), 1, Integer::sum);
        }
        try {
            MadHeader.decode(seg.asSlice(0, len), Qp1.MAD_OFFSET);
            CmaHeader.decode(seg.asSlice(0, len), len / 3);
        } catch (MalformedPacketException e) {
            refusals.merge(e.reason(), 1, Integer::sum);
        }
    }

    /** Every accessor the parsed opcode allows; none may throw. */
    private static void readEverything(RocePacket p) {
        Opcode op = p.opcode();
        long sink = p.psn() + p.destQp() + p.padCount() + p.pKey() + p.payloadLength() + p.payloadOffset() + p.icrc()
                + (p.ackReq() ? 1 : 0) + (p.solicitedEvent() ? 1 : 0) + (p.migReq() ? 1 : 0) + (p.fecn() ? 1 : 0);
        if (op.hasReth()) {
            sink += p.rethVirtualAddress() + p.rethRKey() + p.rethDmaLength();
        }
        if (op.hasAeth()) {
            sink += p.aethSyndrome() + p.aethMsn();
        }
        if (op.hasAtomicEth()) {
            sink += p.atomicVirtualAddress() + p.atomicRKey() + p.atomicSwapOrAdd() + p.atomicCompare();
        }
        if (op.hasAtomicAckEth()) {
            sink += p.atomicAckOriginalData();
        }
        if (op.hasImmDt()) {
            sink += p.immediate();
        }
        if (op.hasIeth()) {
            sink += p.iethRKey();
        }
        if (op.hasDeth()) {
            sink += p.dethQKey() + p.dethSrcQp();
        }
        if (sink == 42) {
            Thread.onSpinWait(); // keep the reads observable
        }
    }

    /** Writes a mutant of {@code original} into {@code out} and returns its length. */
    private static int mutate(RandomGenerator rnd, byte[] original, byte[] out) {
        int len = original.length;
        System.arraycopy(original, 0, out, 0, len);
        switch (rnd.nextInt(6)) {
            case 0 -> { // a few bit flips
                for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                    int bit = rnd.nextInt(len * 8);
                    out[bit >>> 3] ^= (byte) (1 << (bit & 7));
                }
            }
            case 1 -> { // random bytes overwritten, biased to the headers
                for (int k = 1 + rnd.nextInt(6); k > 0; k--) {
                    out[rnd.nextInt(Math.min(len, rnd.nextBoolean() ? 64 : len))] = (byte) rnd.nextInt();
                }
            }
            case 2 -> len = rnd.nextInt(len + 1); // truncation
            case 3 -> { // extension with garbage
                int extra = rnd.nextInt(out.length - len + 1);
                for (int k = 0; k < extra; k++) {
                    out[len + k] = (byte) rnd.nextInt();
                }
                len += extra;
            }
            case 4 -> { // pure noise of a random length
                len = rnd.nextInt(400);
                for (int k = 0; k < len; k++) {
                    out[k] = (byte) rnd.nextInt();
                }
            }
            default -> { // untouched, or a different but valid opcode byte
                if (rnd.nextBoolean()) {
                    out[0] = (byte) Opcode.values()[rnd.nextInt(Opcode.values().length)].code();
                }
            }
        }
        return len;
    }
}
