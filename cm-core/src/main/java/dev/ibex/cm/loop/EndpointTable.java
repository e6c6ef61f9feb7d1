package dev.ibex.cm.loop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The endpoints of one loop, indexed for {@link WrId}: handle = index (20 bits) and a generation (8 bits) bumped
 * each time an index is reused. Loop-confined.
 */
final class EndpointTable {
    static final int MAX = 1 << 20;

    private LoopEndpoint[] slots = new LoopEndpoint[16];
    private byte[] generations = new byte[16];
    private int[] free = new int[16];
    private int freeTop;
    private int used;
    private int size;

    int add(LoopEndpoint e) {
        int idx;
        if (freeTop > 0) {
            idx = free[--freeTop];
        } else {
            if (used == MAX) {
                throw new IllegalStateException("an event loop holds at most " + MAX + " endpoints");
            }
            if (used == slots.length) {
                slots = Arrays.copyOf(slots, used * 2);
                generations = Arrays.copyOf(generations, used * 2);
                free = Arrays.copyOf(free, used * 2);
            }
            idx = used++;
        }
        slots[idx] = e;
        size++;
        return (idx << 8) | (generations[idx] & 0xFF);
    }

    LoopEndpoint get(int handle) {
        int idx = handle >>> 8;
        if (idx >= used || (generations[idx] & 0xFF) != (handle & 0xFF)) {
            return null;
        }
        return slots[idx];
    }

    boolean remove(int handle, LoopEndpoint e) {
        int idx = handle >>> 8;
        if (get(handle) != e || e == null) {
            return false;
        }
        slots[idx] = null;
        generations[idx]++;
        free[freeTop++] = idx;
        size--;
        return true;
    }

    int size() {
        return size;
    }

    List<LoopEndpoint> snapshot() {
        List<LoopEndpoint> out = new ArrayList<>(size);
        for (int i = 0; i < used; i++) {
            if (slots[i] != null) {
                out.add(slots[i]);
            }
        }
        return out;
    }
}
