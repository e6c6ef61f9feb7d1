package dev.ibex.softroce.cm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.transport.SoftDevice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * Communication IDs are 32 random bits each (issue 14): with the kernel's counter XOR one random operand, two ids
 * a peer sees in a row give the operand away and with it every other id of the host, which would let it forge the
 * DREQ or REJ of connections it is not part of.
 */
class CommIdTest {

    @Test
    void idsAreRandomAndNotRelatedToEachOther() {
        IbCm cm = new IbCm(new VirtualTimer(), CmTimings.DEFAULT,
                new ReentrantLock(), SoftDevice.seededRandom());
        List<IbCmId> ids = new ArrayList<>();
        Set<Integer> xorOfNeighbours = new HashSet<>();
        Set<Integer> topBytes = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            IbCmId id = cm.createId(e -> 0, null);
            ids.add(id);
            topBytes.add(id.localId() >>> 24);
            if (i > 0) {
                // a counter XOR an operand: consecutive ids differ in their low bits only
                xorOfNeighbours.add((ids.get(i - 1).localId() ^ id.localId()) >>> 16);
            }
        }
        assertThat(ids.stream().map(IbCmId::localId).distinct().count()).isEqualTo(1_000);
        assertThat(ids).allSatisfy(id -> assertThat(id.localId()).isNotZero());
        assertThat(topBytes).hasSizeGreaterThan(220);
        assertThat(xorOfNeighbours).as("consecutive ids share no high bits").hasSizeGreaterThan(900);
        ids.forEach(IbCmId::destroy);
        assertThat(cm.liveIds()).isZero();
    }
}
