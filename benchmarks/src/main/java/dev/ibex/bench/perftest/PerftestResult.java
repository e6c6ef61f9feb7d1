package dev.ibex.bench.perftest;

import java.util.List;

/**
 * The result row perftest prints under its column header, by column name: latency tests ({@code #bytes
 * #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9%
 * percentile[usec]}) and bandwidth tests ({@code #bytes #iterations BW peak[MB/sec] BW average[MB/sec]
 * MsgRate[Mpps]}).
 *
 * @param columns the header's column names as perftest prints them
 * @param values the figures of the result row
 */
public record PerftestResult(List<String> columns, List<Double> values) {

    /** Parses the first result row of a perftest output (the client's, which is the whole output of a client). */
    public static PerftestResult parse(String output) {
        List<String> lines = output.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.startsWith("#bytes")) {
                List<String> columns = columns(line);
                for (int j = i + 1; j < lines.size(); j++) {
                    String row = lines.get(j).trim();
                    if (!row.isEmpty() && Character.isDigit(row.charAt(0))) {
                        List<Double> values = java.util.Arrays.stream(row.split("\\s+"))
                                .map(PerftestResult::number).toList();
                        if (values.size() != columns.size()) {
                            throw new IllegalArgumentException("perftest row " + values + " does not match " + columns);
                        }
                        return new PerftestResult(columns, values);
                    }
                }
            }
        }
        throw new IllegalArgumentException("no perftest result row in:\n" + output);
    }

    /**
     * A figure; perftest prints C's "nan"/"-nan" and "inf" (a stdev over too few samples, a latency from a clock
     * that jumped), which Java does not parse.
     */
    static double number(String s) {
        if (s.endsWith("nan")) {
            return Double.NaN;
        }
        if (s.endsWith("inf")) {
            return s.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        return Double.parseDouble(s);
    }

    /**
     * Whether the figures a benchmark reads (t_typical, t_avg, BW average, MsgRate, where present) are all finite
     * and positive: perftest sometimes prints a zero rate for a run that did happen (seen with {@code ib_send_bw}
     * over rdma_cm on rxe under TCG), which must not become a ratio.
     */
    public boolean measured() {
        boolean any = false;
        for (int i = 0; i < columns.size(); i++) {
            String c = columns.get(i);
            if (c.startsWith("t_typical") || c.startsWith("t_avg") || c.startsWith("BW average")
                    || c.startsWith("MsgRate")) {
                any = true;
                double v = values.get(i);
                if (!(v > 0) || Double.isInfinite(v)) {
                    return false;
                }
            }
        }
        return any;
    }

    /** The header's column names; two-word names ("BW peak[MB/sec]", "99% percentile[usec]") kept whole. */
    static List<String> columns(String header) {
        List<String> out = new java.util.ArrayList<>();
        String pending = null;
        for (String t : header.trim().split("\\s+")) {
            if (pending != null) {
                out.add(pending + " " + t);
                pending = null;
            } else if (t.equals("BW") || t.endsWith("%")) {
                pending = t;
            } else {
                out.add(t);
            }
        }
        return out;
    }

    /** The figure of the column whose name starts with {@code prefix} ("t_typical", "99%", "MsgRate"). */
    public double get(String prefix) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).startsWith(prefix)) {
                return values.get(i);
            }
        }
        throw new IllegalArgumentException("no column " + prefix + " in " + columns);
    }
}
