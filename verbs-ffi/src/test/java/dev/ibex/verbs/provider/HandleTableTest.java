package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandleTableTest {
    private final HandleTable table = new HandleTable();

    @Test
    void handlesFindTheirObjectsAndAreNeverZero() {
        Object a = new Object();
        Object b = "b";
        long ha = table.register(a);
        long hb = table.register(b);
        assertThat(ha).isNotZero().isNotEqualTo(hb);
        assertThat(table.lookup(ha)).isSameAs(a);
        assertThat(table.lookup(hb, String.class)).isEqualTo("b");
        assertThat(table.lookup(hb, Integer.class)).as("wrong type").isNull();
        assertThat(table.lookup(0)).isNull();
        assertThat(table.size()).isEqualTo(2);
    }

    @Test
    void aReleasedHandleIsStaleEvenWhenItsSlotIsReused() {
        Object a = new Object();
        long ha = table.register(a);
        table.release(ha);
        assertThat(table.lookup(ha)).isNull();
        Object c = new Object();
        long hc = table.register(c);
        assertThat((int) hc).as("same slot").isEqualTo((int) ha);
        assertThat(hc).isNotEqualTo(ha);
        assertThat(table.lookup(ha)).as("the old handle must not find the new object").isNull();
        assertThat(table.lookup(hc)).isSameAs(c);
        table.release(ha);
        assertThat(table.lookup(hc)).as("releasing a stale handle is a no-op").isSameAs(c);
        assertThat(table.size()).isEqualTo(1);
    }

    @Test
    void growsAndShrinksWithoutLosingObjects() {
        List<Long> handles = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            handles.add(table.register(i));
        }
        for (int i = 0; i < 1000; i++) {
            assertThat(table.lookup(handles.get(i))).isEqualTo(i);
        }
        handles.forEach(table::release);
        assertThat(table.size()).isZero();
        table.register("again");
        assertThat(table.size()).isEqualTo(1);
        assertThatThrownBy(() -> table.register(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void garbageHandlesFindNothing() {
        table.register("x");
        assertThat(table.lookup(0xFFFF_FFFF_FFFF_FFFFL)).isNull();
        assertThat(table.lookup(0x7FFF_FFFFL)).isNull();
        assertThat(table.lookup(1L << 40)).isNull();
    }
}
