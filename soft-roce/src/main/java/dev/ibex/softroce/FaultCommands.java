package dev.ibex.softroce;

import dev.ibex.softroce.net.FaultInjector;
import dev.ibex.softroce.transport.SoftDevice;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Locale;

/**
 * Text commands that change a fabric's faults at run time — what a sample's stdin or a watched control file
 * ({@link FaultControlFile}) carries, so that a path can be cut from outside the JVM. One command per line:
 *
 * <pre>
 * cut A B                    the path between addresses A and B dies, both directions (a black hole)
 * heal A B                   and comes back
 * port DEVICE N down|up      port N of DEVICE goes DOWN (an unplugged cable: PORT_ERR) or ACTIVE (PORT_ACTIVE)
 * drop P | duplicate P       every datagram sent is dropped / sent twice with probability P
 * reorder P [HOLD_MICROS]    held back and overtaken with probability P (held up to 1000 µs)
 * delay MICROS               every datagram sent is delayed
 * reset                      everything above off, every path healed
 * </pre>
 *
 * Blank lines and {@code #} comments are ignored. {@code cut}/{@code heal} name the pair in both orders, so the same
 * line works in the process of either end; {@code port} applies in the process that has the device and is ignored
 * elsewhere (two processes may watch one file). Thread-safe.
 */
public final class FaultCommands {
    private final SoftFabric fabric;

    FaultCommands(SoftFabric fabric) {
        this.fabric = fabric;
    }

    /**
     * Applies one command.
     *
     * @return what was done, e.g. {@code "cut 127.0.0.2 <-> 127.0.0.3"}, or {@code null} for a blank line, a
     *     comment or a port of a device this fabric does not have
     * @throws IllegalArgumentException for a malformed command, with the syntax
     * @param line the command, e.g. {@code cut 127.0.0.2 127.0.0.3}; text after {@code #} is a comment
     */
    public String apply(String line) {
        String s = line.strip();
        int hash = s.indexOf('#');
        if (hash >= 0) {
            s = s.substring(0, hash).strip();
        }
        if (s.isEmpty()) {
            return null;
        }
        String[] w = s.split("\\s+");
        FaultInjector faults = fabric.faults();
        switch (w[0].toLowerCase(Locale.ROOT)) {
            case "cut", "heal" -> {
                arity(w, 3, "cut|heal A B");
                int a = ip(w[1]);
                int b = ip(w[2]);
                if (w[0].equalsIgnoreCase("cut")) {
                    faults.blackHole(a, b).blackHole(b, a);
                } else {
                    faults.heal(a, b).heal(b, a);
                }
                return w[0].toLowerCase(Locale.ROOT) + " " + w[1] + " <-> " + w[2];
            }
            case "port" -> {
                arity(w, 4, "port DEVICE N down|up");
                boolean up = switch (w[3].toLowerCase(Locale.ROOT)) {
                    case "up" -> true;
                    case "down" -> false;
                    default -> throw syntax("port DEVICE N down|up", s);
                };
                int n = integer(w[2], s);
                for (SoftDevice d : fabric.softDevices()) {
                    if (d.name().equals(w[1])) {
                        d.setPortActive(n, up);
                        return "port " + w[1] + "/" + n + (up ? " up" : " down");
                    }
                }
                return null;
            }
            case "drop" -> {
                arity(w, 2, "drop P");
                faults.onSend().drop(probability(w[1], s));
                return s;
            }
            case "duplicate" -> {
                arity(w, 2, "duplicate P");
                faults.onSend().duplicate(probability(w[1], s));
                return s;
            }
            case "reorder" -> {
                if (w.length != 2 && w.length != 3) {
                    throw syntax("reorder P [HOLD_MICROS]", s);
                }
                long hold = w.length == 3 ? integer(w[2], s) : 1000;
                faults.onSend().reorder(probability(w[1], s), Duration.ofNanos(Math.max(1, hold) * 1000));
                return s;
            }
            case "delay" -> {
                arity(w, 2, "delay MICROS");
                faults.onSend().delay(Duration.ofNanos(integer(w[1], s) * 1000L));
                return s;
            }
            case "reset" -> {
                arity(w, 1, "reset");
                faults.reset();
                return "reset";
            }
            default -> throw new IllegalArgumentException("unknown fault command '" + s + "': use cut|heal A B, port"
                    + " DEVICE N down|up, drop P, duplicate P, reorder P [HOLD_MICROS], delay MICROS or reset");
        }
    }

    private static void arity(String[] w, int n, String syntax) {
        if (w.length != n) {
            throw syntax(syntax, String.join(" ", w));
        }
    }

    private static IllegalArgumentException syntax(String syntax, String line) {
        return new IllegalArgumentException("'" + line + "' is not '" + syntax + "'");
    }

    private static int ip(String text) {
        try {
            InetAddress a = DeviceConfig.parseIpv4(text);
            return dev.ibex.softroce.wire.Ipv4.toInt(a);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 address", e);
        }
    }

    private static int integer(String text, String line) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' in '" + line + "' is not a whole number");
        }
    }

    private static double probability(String text, String line) {
        try {
            double p = Double.parseDouble(text);
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("probability " + text + " in '" + line + "' is not in [0, 1]");
            }
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' in '" + line + "' is not a probability");
        }
    }
}
