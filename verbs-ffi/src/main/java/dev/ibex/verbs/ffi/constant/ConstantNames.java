package dev.ibex.verbs.ffi.constant;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns constant values back into their C names for messages and logs ("IBV_WC_RETRY_EXC_ERR" instead of
 * "12"), from the {@code public static final int} fields of a constant class. Built once per class.
 */
final class ConstantNames {
    private static final ClassValue<Map<Integer, String>> NAMES = new ClassValue<>() {
        @Override
        protected Map<Integer, String> computeValue(Class<?> type) {
            Map<Integer, String> names = new LinkedHashMap<>();
            for (Field f : type.getFields()) {
                if (f.getType() == int.class && Modifier.isStatic(f.getModifiers())) {
                    try {
                        names.putIfAbsent(f.getInt(null), f.getName());
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            return Map.copyOf(names);
        }
    };

    private ConstantNames() {
    }

    static String name(Class<?> type, int value) {
        String name = NAMES.get(type).get(value);
        return name != null ? name : "UNKNOWN(" + value + ")";
    }

    static String flags(Class<?> type, int mask) {
        if (mask == 0) {
            return "0";
        }
        StringBuilder sb = new StringBuilder();
        int rest = mask;
        for (int bit = 0; bit < 32; bit++) {
            int flag = 1 << bit;
            if ((mask & flag) != 0) {
                String name = NAMES.get(type).get(flag);
                if (name != null) {
                    sb.append(sb.isEmpty() ? "" : "|").append(name);
                    rest &= ~flag;
                }
            }
        }
        if (rest != 0) {
            sb.append(sb.isEmpty() ? "" : "|").append("0x").append(Integer.toHexString(rest));
        }
        return sb.toString();
    }
}
