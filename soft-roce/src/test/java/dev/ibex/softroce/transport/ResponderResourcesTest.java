package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The responder's ring of READ and atomic resources, whose slots are filled as requests take them: the oldest is
 * overwritten when the ring is full, a duplicate finds the slot holding its PSN, a reset empties the ring.
 */
class ResponderResourcesTest {

    @Test
    void requestsTakeSlotsInTurnAndTheOldestIsOverwritten() {
        ResponderResources r = new ResponderResources();
        r.reset(2);
        assertThat(r.isEmpty()).isFalse();
        assertThat(r.toString()).isEqualTo("[]"); // no slot taken yet
        assertThat(r.replayAtomic(5)).isNull();
        r.startAtomic(5, 111);
        ResponderResource read = r.startRead(6, 3, 0x1000, 42, 3 * 4096);
        assertThat(read.firstPsn).isEqualTo(6);
        assertThat(read.lastPsn).isEqualTo(8);
        assertThat(r.toString()).isEqualTo("[A5 R6-8 ]");
        ResponderResource atomic = r.replayAtomic(5);
        assertThat(atomic.original).isEqualTo(111);
        assertThat(atomic.replay).isTrue();

        r.startAtomic(9, 222); // the ring is full: the oldest (the atomic at 5) goes
        assertThat(r.replayAtomic(5)).isNull();
        assertThat(r.replayAtomic(9).original).isEqualTo(222);
        assertThat(r.toString()).isEqualTo("[A9 R6-8 ]");
    }

    @Test
    void aResetEmptiesTheRingAndResizesIt() {
        ResponderResources r = new ResponderResources();
        assertThat(r.isEmpty()).isTrue(); // max_dest_rd_atomic 0 until a QP enters RTR
        r.reset(1);
        r.startAtomic(5, 111);
        r.reset(1);
        assertThat(r.replayAtomic(5)).isNull();
        assertThat(r.toString()).isEqualTo("[]");
        r.reset(0);
        assertThat(r.isEmpty()).isTrue();
    }
}
