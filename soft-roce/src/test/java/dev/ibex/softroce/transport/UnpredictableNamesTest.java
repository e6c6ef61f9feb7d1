package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.softroce.Harness;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Memory keys and QP numbers are drawn at random (issue 14): a peer that knows some learns nothing about the others.
 * A table index would fail every check here: its numbers are small, dense and consecutive.
 */
class UnpredictableNamesTest {
    private Harness h;

    @BeforeEach
    void open() {
        h = new Harness();
    }

    @AfterEach
    void close() {
        h.close();
    }

    @Test
    void memoryKeysCarry24RandomBitsAndNeighboursOfAKeyNameNothing() {
        ProtectionDomain pd = h.a.allocPd();
        SoftDevice dev = ((SoftProtectionDomain) pd).softDevice();
        MemorySegment seg = h.arena.allocate(64);
        List<MemoryRegion> mrs = new ArrayList<>();
        Set<Integer> tags = new HashSet<>();
        Set<Integer> topBytes = new HashSet<>();
        Set<Integer> lowBytes = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            MemoryRegion mr = pd.registerMemory(seg, Set.of(Access.LOCAL_WRITE));
            mrs.add(mr);
            tags.add(mr.rkey() >>> 8);
            topBytes.add(mr.rkey() >>> 24);
            lowBytes.add(mr.rkey() & 0xFF);
        }
        assertThat(tags).as("the 24-bit part names one region each").hasSize(2_000);
        // 2,000 uniform draws leave a given top byte unused with probability 4e-4: counters and indexes use few
        assertThat(topBytes).as("the top bits vary as much as random bits").hasSizeGreaterThan(240);
        assertThat(lowBytes).hasSizeGreaterThan(240);
        MemoryRegion one = mrs.get(1000);
        int misses = 0;
        for (int d = 1; d <= 64; d++) { // the keys an index-based scheme would give the next and previous regions
            for (int low = 0; low < 256; low++) {
                int up = ((one.rkey() >>> 8) + d) << 8 | low;
                int down = ((one.rkey() >>> 8) - d) << 8 | low;
                if (dev.memoryRegion(up) == null && dev.memoryRegion(down) == null) {
                    misses++;
                }
            }
        }
        assertThat(misses).as("almost every neighbouring number names nothing").isGreaterThan(64 * 256 - 10);
        int key = one.rkey();
        one.close();
        assertThat(dev.memoryRegion(key)).as("a closed region's key is dead").isNull();
        mrs.remove(one);
        mrs.forEach(MemoryRegion::close);
        pd.close();
    }

    @Test
    void queuePairNumbersAreRandom24BitNumbers() {
        ProtectionDomain pd = h.a.allocPd();
        SoftDevice dev = ((SoftProtectionDomain) pd).softDevice();
        CompletionQueue cq = h.a.createCompletionQueue(16, null, 0);
        List<QueuePair> qps = new ArrayList<>();
        Set<Integer> topBytes = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            QueuePair qp = pd.createQueuePair(new QpInitAttr(cq, cq, null, new QpCap(1, 1, 1, 1, 0), QpType.RC,
                    false, null));
            assertThat(qp.qpNum()).isBetween(2, 0xFFFFFE);
            assertThat(dev.queuePair(qp.qpNum())).isSameAs(qp);
            topBytes.add(qp.qpNum() >>> 16);
            qps.add(qp);
        }
        assertThat(qps.stream().map(QueuePair::qpNum).distinct().count()).isEqualTo(1_000);
        // 1,000 uniform draws leave a given top byte unused with probability 2%: an index+generation scheme uses 1
        assertThat(topBytes).hasSizeGreaterThan(220);
        int qpn = qps.get(0).qpNum();
        qps.forEach(QueuePair::close);
        assertThat(dev.queuePair(qpn)).isNull();
        cq.close();
        pd.close();
    }
}
