package dev.ibex.bench.perftest;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * rdma-core's {@code cmtime} table read back from its output: per step ("create id", "resolve addr", …) the total
 * milliseconds over all connections (the other columns are the slowest connection, the fastest and the mean).
 *
 * @param totalMillis step name → total ms, in the printed order
 */
public record CmtimeResult(Map<String, Double> totalMillis) {
    /** The steps a {@code Connection.connect} covers: everything up to ESTABLISHED. */
    public static final String[] SETUP = {"create id", "resolve addr", "resolve route", "create qp", "connect"};

    /**
     * A row: the step, then four {@code %11.2f} columns. A value wider than 11 characters runs into the column before
     * it (no blank between them): cmtime prints the "min us" of a step no connection timed both ends of as
     * 999999999.00 (the likely reason why a run against a cold Java server in the VM gave a table without its connect
     * row). Every value has two decimals, so the columns are told apart by those; a step's row that still does not
     * match is an error naming the line.
     */
    private static final Pattern ROW = Pattern.compile(
            "^(\\S.*?)\\s*:\\s+(\\d+\\.\\d\\d)\\s*(\\d+\\.\\d\\d)\\s*(\\d+\\.\\d\\d)\\s*(\\d+\\.\\d\\d)$");

    public static CmtimeResult parse(String output) {
        Map<String, Double> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : output.lines().toList()) {
            if (line.startsWith("step ") && line.contains("total ms")) {
                inTable = true;
                continue;
            }
            Matcher m = ROW.matcher(line.trim());
            if (inTable && m.matches()) {
                rows.put(m.group(1), Double.parseDouble(m.group(2)));
            } else if (inTable && isStepRow(line)) {
                throw new IllegalArgumentException("a cmtime row not understood: '" + line + "' in:\n" + output);
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no cmtime table in:\n" + output);
        }
        return new CmtimeResult(Map.copyOf(rows));
    }

    /** Every step a cmtime client prints, in its order (bind addr only when it bound a source address). */
    public static final String[] STEPS = {"create id", "resolve addr", "resolve route", "create qp", "connect",
        "disconnect", "destroy"};

    /**
     * Every table in {@code output}, in order: the Java port's {@code --repeat N} prints one per run.
     *
     * @throws IllegalArgumentException when there is none
     */
    public static java.util.List<CmtimeResult> parseAll(String output) {
        java.util.List<CmtimeResult> tables = new java.util.ArrayList<>();
        StringBuilder current = null;
        for (String line : output.lines().toList()) {
            if (line.startsWith("step ") && line.contains("total ms")) {
                if (current != null) {
                    tables.add(parse(current.toString()));
                }
                current = new StringBuilder();
            }
            if (current != null) {
                current.append(line).append('\n');
            }
        }
        if (current == null) {
            throw new IllegalArgumentException("no cmtime table in:\n" + output);
        }
        tables.add(parse(current.toString()));
        return tables;
    }

    private static boolean isStepRow(String line) {
        for (String step : STEPS) {
            if (line.startsWith(step) && line.substring(step.length()).trim().startsWith(":")) {
                return true;
            }
        }
        return false;
    }

    /** The sum of the named steps' totals in ms. */
    public double sum(String... steps) {
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
