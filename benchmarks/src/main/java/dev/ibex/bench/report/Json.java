package dev.ibex.bench.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A small JSON writer for the harnesses' result files: objects, arrays, strings, numbers, booleans and null. Written
 * by hand because the benchmarks have no JSON library among their dependencies and these files need only output (a
 * few records of figures), not parsing or binding; a non-finite number (a side that was not measured) is written as
 * {@code null}.
 *
 * <p><b>Threading.</b> Stateless.
 */
public final class Json {
    private Json() {}

    /**
     * The JSON text of {@code value}: a {@link Map} (keys as strings, in its iteration order), a {@link List}, a
     * {@link CharSequence}, a {@link Number}, a {@link Boolean} or {@code null}; anything else as its string.
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        switch (v) {
            case null -> sb.append("null");
            case Map<?, ?> m -> {
                if (m.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    sb.append(first ? "\n" : ",\n");
                    first = false;
                    pad(sb, indent + 1);
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), indent + 1);
                }
                sb.append('\n');
                pad(sb, indent);
                sb.append('}');
            }
            case List<?> l -> {
                if (l.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                sb.append('[');
                boolean first = true;
                for (Object o : l) {
                    sb.append(first ? "\n" : ",\n");
                    first = false;
                    pad(sb, indent + 1);
                    write(sb, o, indent + 1);
                }
                sb.append('\n');
                pad(sb, indent);
                sb.append(']');
            }
            case Double d -> number(sb, d);
            case Float f -> number(sb, f);
            case Number n -> sb.append(n);
            case Boolean b -> sb.append(b);
            default -> string(sb, v.toString());
        }
    }

    private static void number(StringBuilder sb, double d) {
        if (!Double.isFinite(d)) {
            sb.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            sb.append((long) d);
        } else { // six significant digits: more than any of these figures has
            sb.append(BigDecimal.valueOf(d).round(new MathContext(6)).stripTrailingZeros().toString());
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    private static void pad(StringBuilder sb, int indent) {
        sb.append("  ".repeat(indent));
    }
}
