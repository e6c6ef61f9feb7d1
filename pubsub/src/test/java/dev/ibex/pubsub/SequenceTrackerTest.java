package dev.ibex.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.pubsub.SequenceTracker.Verdict;
import org.junit.jupiter.api.Test;

class SequenceTrackerTest {
    final SequenceTracker t = new SequenceTracker();

    @Test
    void inOrderFromTheFirstFrameHeard() {
        t.join();
        for (long s = 5; s <= 9; s++) {
            assertThat(t.onData(s)).isEqualTo(Verdict.DELIVER);
        }
        assertThat(t.received).isEqualTo(5);
        assertThat(t.lost).isZero();
        assertThat(t.highest).isEqualTo(9);
    }

    @Test
    void aGapIsLostUntilItsMessagesArriveLate() {
        t.join();
        t.onData(1);
        assertThat(t.onData(5)).isEqualTo(Verdict.DELIVER);
        assertThat(t.lastGap()).isEqualTo(3);
        assertThat(t.lost).isEqualTo(3);
        assertThat(t.onData(3)).isEqualTo(Verdict.DELIVER); // late: no longer lost
        assertThat(t.lastGap()).isZero();
        assertThat(t.lost).isEqualTo(2);
        assertThat(t.outOfOrder).isEqualTo(1);
        assertThat(t.onData(3)).isEqualTo(Verdict.DUPLICATE);
        assertThat(t.onData(5)).isEqualTo(Verdict.DUPLICATE);
        assertThat(t.duplicates).isEqualTo(2);
        assertThat(t.received).isEqualTo(3);
    }

    @Test
    void heartbeatsRevealTailLossAndSetTheBaseline() {
        t.join();
        t.onHeartbeat(10); // joined late: 1..10 were before our time
        assertThat(t.onData(7)).isEqualTo(Verdict.STALE);
        assertThat(t.onData(11)).isEqualTo(Verdict.DELIVER);
        t.onHeartbeat(14); // 12, 13, 14 never came
        assertThat(t.lastGap()).isEqualTo(3);
        assertThat(t.lost).isEqualTo(3);
        assertThat(t.highest).isEqualTo(14);
        assertThat(t.onData(13)).isEqualTo(Verdict.DELIVER); // one of them arrives after the heartbeat
        assertThat(t.lost).isEqualTo(2);
        t.onHeartbeat(14);
        assertThat(t.lastGap()).isZero();
        assertThat(t.onData(15)).isEqualTo(Verdict.DELIVER);
        assertThat(t.lost).isEqualTo(2);
        assertThat(t.stale).isEqualTo(1);
    }

    @Test
    void aSubscriberThereBeforeTheFirstMessageCountsItsLoss() {
        t.join();
        t.onHeartbeat(0); // the publisher's opening heartbeat
        t.onData(3);
        assertThat(t.lost).isEqualTo(2);
    }

    @Test
    void whatWasSentWhileAwayIsMissedNotLost() {
        t.join();
        t.onData(1);
        t.onData(2);
        t.leave();
        t.join();
        t.onData(10); // 3..9 went out while away
        assertThat(t.missedWhileAway).isEqualTo(7);
        assertThat(t.lost).isZero();
        t.leave();
        t.join();
        t.onHeartbeat(20); // 11..20 while away
        assertThat(t.missedWhileAway).isEqualTo(17);
        t.onData(22);
        assertThat(t.lost).isEqualTo(1);
        assertThat(t.received).isEqualTo(4);
    }

    @Test
    void aNewEpochCountsFromOneWhenHeardFromItsStartElseFromItsFirstFrame() {
        t.join();
        t.onData(100);
        t.newEpoch(true);
        t.onData(2);
        assertThat(t.lost).isEqualTo(1); // #1 of the new epoch was lost
        t.leave();
        t.join();
        t.newEpoch(false); // restarted while we were away
        t.onData(6);
        assertThat(t.missedWhileAway).isEqualTo(5);
        assertThat(t.lost).isEqualTo(1);
    }

    @Test
    void farBehindTheWindowIsStaleAndAHugeGapIsCounted() {
        t.join();
        t.onData(1);
        t.onData(2 + SequenceTracker.WINDOW * 3L);
        assertThat(t.lost).isEqualTo(SequenceTracker.WINDOW * 3L);
        assertThat(t.onData(2)).isEqualTo(Verdict.STALE);
        assertThat(t.onData(SequenceTracker.WINDOW * 3L)).isEqualTo(Verdict.DELIVER); // in the window: late
        assertThat(t.lost).isEqualTo(SequenceTracker.WINDOW * 3L - 1);
    }
}
