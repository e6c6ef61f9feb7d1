package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KeyTableTest {

    @Test
    void numbersAreRandomFreeAndNeverReserved() {
        KeyTable<String> t = new KeyTable<>(10_000, new SplittableRandom(1), 1, 0xFFFFFF);
        Map<Integer, String> live = new HashMap<>();
        for (int i = 0; i < 5_000; i++) {
            String v = "v" + i;
            int k = t.add(v);
            assertThat(k).isBetween(2, 0xFFFFFE);
            assertThat(live.put(k, v)).as("a number is handed out once while alive").isNull();
        }
        live.forEach((k, v) -> assertThat(t.get(k)).isSameAs(v));
        assertThat(t.size()).isEqualTo(5_000);
    }

    @Test
    void removedEntriesAreGoneAndChurnKeepsEveryLiveEntryReachable() {
        KeyTable<Object> t = new KeyTable<>(1_000, new SplittableRandom(2));
        SplittableRandom r = new SplittableRandom(3);
        Map<Integer, Object> live = new HashMap<>();
        List<Integer> keys = new ArrayList<>();
        for (int round = 0; round < 100_000; round++) {
            if (keys.size() < 500 && (keys.isEmpty() || r.nextBoolean())) {
                Object v = new Object();
                int k = t.add(v);
                live.put(k, v);
                keys.add(k);
            } else {
                int k = keys.remove(r.nextInt(keys.size()));
                Object v = live.remove(k);
                t.remove(k, v);
                assertThat(t.get(k)).isNull();
            }
        }
        live.forEach((k, v) -> assertThat(t.get(k)).isSameAs(v));
        assertThat(t.size()).isEqualTo(live.size());
        assertThat(t.find(v -> v == live.values().iterator().next())).isNotNull();
    }

    @Test
    void removeIgnoresAnotherValueUnderTheSameNumber() {
        KeyTable<Object> t = new KeyTable<>(10, new SplittableRandom(4));
        Object v = new Object();
        int k = t.add(v);
        t.remove(k, new Object());
        assertThat(t.get(k)).isSameAs(v);
    }

    @Test
    void fullTableRefuses() {
        KeyTable<Object> t = new KeyTable<>(3, new SplittableRandom(5));
        for (int i = 0; i < 3; i++) {
            assertThat(t.add(new Object())).isPositive();
        }
        assertThat(t.add(new Object())).isEqualTo(-1);
    }

    @Test
    void lockFreeReadersNeverMissALiveEntryWhileOthersChurn() throws Exception {
        KeyTable<Object> t = new KeyTable<>(100_000, new SplittableRandom(6));
        Object anchor = new Object();
        int anchorKey = t.add(anchor);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong misses = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        Thread reader = new Thread(() -> {
            while (!stop.get()) {
                if (t.get(anchorKey) != anchor) {
                    misses.incrementAndGet();
                }
                reads.incrementAndGet();
            }
        });
        reader.start();
        SplittableRandom r = new SplittableRandom(7);
        List<int[]> keys = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) { // grows, rehashes and reuses tombstones around the anchor
            if (keys.size() < 2_000 && (keys.isEmpty() || r.nextInt(3) > 0)) {
                Object v = new Object();
                keys.add(new int[] {t.add(v)});
                values.add(v);
            } else {
                int at = r.nextInt(keys.size());
                t.remove(keys.remove(at)[0], values.remove(at));
            }
        }
        stop.set(true);
        reader.join();
        assertThat(reads.get()).isPositive();
        assertThat(misses.get()).isZero();
    }
}
