package dev.ibex.cm.loop;

/**
 * QP number → endpoint, for receives from a shared receive queue (their buffers may be consumed by any QP, so the
 * wr_id cannot name the endpoint). Open addressing with linear probing on int keys: lookups allocate nothing.
 * Loop-confined.
 */
final class QpDirectory {
    private int[] keys = new int[16];
    private LoopEndpoint[] values = new LoopEndpoint[16];
    private int size;

    void put(int qpNum, LoopEndpoint e) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int i = slot(qpNum, keys.length);
        while (values[i] != null && keys[i] != qpNum) {
            i = (i + 1) & (keys.length - 1);
        }
        if (values[i] == null) {
            size++;
        }
        keys[i] = qpNum;
        values[i] = e;
    }

    LoopEndpoint get(int qpNum) {
        int i = slot(qpNum, keys.length);
        while (values[i] != null) {
            if (keys[i] == qpNum) {
                return values[i];
            }
            i = (i + 1) & (keys.length - 1);
        }
        return null;
    }

    void remove(int qpNum) {
        int mask = keys.length - 1;
        int i = slot(qpNum, keys.length);
        while (values[i] != null && keys[i] != qpNum) {
            i = (i + 1) & mask;
        }
        if (values[i] == null) {
            return;
        }
        values[i] = null;
        size--;
        // backward-shift the rest of the cluster so lookups never stop at the hole
        int j = (i + 1) & mask;
        while (values[j] != null) {
            int home = slot(keys[j], keys.length);
            boolean movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                keys[i] = keys[j];
                values[i] = values[j];
                values[j] = null;
                i = j;
            }
            j = (j + 1) & mask;
        }
    }

    int size() {
        return size;
    }

    private static int slot(int key, int length) {
        return (key * 0x9E3779B9 >>> 16 ^ key * 0x9E3779B9) & (length - 1);
    }

    private void grow() {
        int[] k = keys;
        LoopEndpoint[] v = values;
        keys = new int[k.length * 2];
        values = new LoopEndpoint[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (v[i] != null) {
                put(k[i], v[i]);
            }
        }
    }
}
