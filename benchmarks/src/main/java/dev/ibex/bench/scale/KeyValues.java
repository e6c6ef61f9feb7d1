package dev.ibex.bench.scale;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The answer lines benchmark processes print: a keyword, then {@code key=value} pairs separated by spaces
 * ({@code STATS heapAfterGc=1234 rss=5678}); a value runs to the next space. Immutable.
 */
record KeyValues(String keyword, Map<String, String> values) {

    static KeyValues parse(String line) {
        String[] parts = line.trim().split(" +");
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq > 0) {
                m.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
            }
        }
        return new KeyValues(parts[0], Map.copyOf(m));
    }

    long getLong(String key) {
        String v = values.get(key);
        if (v == null) {
            throw new IllegalArgumentException("no " + key + " in " + keyword + " " + values);
        }
        return Long.parseLong(v);
    }

    double getDouble(String key) {
        String v = values.get(key);
        return v == null ? Double.NaN : Double.parseDouble(v);
    }

    String get(String key, String otherwise) {
        return values.getOrDefault(key, otherwise);
    }

    /** The line again: {@code keyword k=v …}. */
    static String format(String keyword, Map<String, ?> values) {
        StringBuilder b = new StringBuilder(keyword);
        values.forEach((k, v) -> b.append(' ').append(k).append('=').append(String.valueOf(v).replace(' ', '_')));
        return b.toString();
    }
}
