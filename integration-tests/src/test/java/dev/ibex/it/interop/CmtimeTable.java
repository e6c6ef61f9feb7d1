package dev.ibex.it.interop;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * cmtime's table read back from its output: per step, the total milliseconds (the rest of the row is the
 * slowest connection, the fastest and the mean).
 *
 * @param totalMillis step name → total ms
 */
record CmtimeTable(Map<String, Double> totalMillis) {
    private static final Pattern ROW = Pattern.compile(
            "^(\\S.*?)\\s*:\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)$");

    static CmtimeTable parse(String output) {
        Map<String, Double> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : output.lines().toList()) {
            if (line.startsWith("step ") && line.contains("total ms")) {
                inTable = true;
                continue;
            }
            Matcher m = ROW.matcher(line);
            if (inTable && m.matches()) {
                rows.put(m.group(1), Double.parseDouble(m.group(2)));
            }
        }
        return new CmtimeTable(rows);
    }

    /** The sum of the named steps' totals, in ms. */
    double sum(String... steps) {
        double s = 0;
        for (String step : steps) {
            Double v = totalMillis.get(step);
            if (v == null) {
                throw new IllegalArgumentException("no row '" + step + "' in " + totalMillis);
            }
            s += v;
        }
        return s;
    }
}
