package dev.ibex.softroce;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * One configured soft device: its name and its ports, each with its IPv4 addresses. Address {@code i} of port
 * {@code p} is entry {@code i} of port {@code p}'s GID table (the IPv4-mapped address). A device has a second path
 * for APM when it has two addresses: two ports, or two GIDs on one port.
 *
 * @param name device name, e.g. {@code soft0}
 * @param ports one list of addresses per port (port 1 first), each non-empty; all addresses distinct
 */
public record DeviceConfig(String name, List<List<Inet4Address>> ports) {
    /** Most ports a device may have ({@code phys_port_cnt} is a byte in verbs). */
    public static final int MAX_PORTS = 8;

    /**
     * Checks the name and the addresses and copies the lists.
     *
     * @throws IllegalArgumentException when the name is blank or has other characters than letters, digits, '_', '.'
     * and '-', a port has no address, there are more than {@value #MAX_PORTS} ports, or an address appears twice
     */
    public DeviceConfig {
        if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("a device name is letters, digits, '_', '.' or '-', got '" + name + "'");
        }
        if (ports == null || ports.isEmpty() || ports.stream().anyMatch(p -> p == null || p.isEmpty())) {
            throw new IllegalArgumentException("device " + name + " needs at least one address on every port");
        }
        if (ports.size() > MAX_PORTS) {
            throw new IllegalArgumentException("device " + name + " has " + ports.size() + " ports; at most "
                    + MAX_PORTS);
        }
        ports = ports.stream().map(List::copyOf).toList();
        List<Inet4Address> all = ports.stream().flatMap(List::stream).toList();
        if (all.stream().distinct().count() != all.size()) {
            throw new IllegalArgumentException("device " + name + " lists an address twice: " + all);
        }
    }

    /**
     * A device with one port holding {@code addresses}.
     *
     * @param name      the device name
     * @param addresses the port's addresses, at least one
     * @return the device
     * @throws IllegalArgumentException as the constructor does
     */
    public static DeviceConfig onePort(String name, List<Inet4Address> addresses) {
        return new DeviceConfig(name, List.of(addresses));
    }

    /**
     * Every address, port 1's first (the device's address order).
     *
     * @return the addresses, port by port
     */
    public List<Inet4Address> addresses() {
        return ports.stream().flatMap(List::stream).toList();
    }

    /**
     * Parses {@code name=port[/port...][,name=...]} where a port is {@code ip[+ip...]}: {@code +} adds a GID to
     * a port, {@code /} starts the next port. E.g. {@code soft0=127.0.0.2,soft1=127.0.0.3} (one address each),
     * {@code soft0=127.0.0.2+127.0.0.12} (one port, two GIDs) or {@code soft0=127.0.0.2/127.0.0.12} (two ports).
     * Only literal IPv4 addresses are accepted (no name lookups).
     *
     * @param spec the device list, as {@code ibex.softroce.devices} takes it
     * @return the devices, in the list's order
     * @throws IllegalArgumentException when {@code spec} is empty or malformed, or an address is not a literal IPv4
     * address
     */
    public static List<DeviceConfig> parseList(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("empty device list");
        }
        List<DeviceConfig> out = new ArrayList<>();
        for (String item : spec.split(",")) {
            String s = item.trim();
            int eq = s.indexOf('=');
            if (eq <= 0 || eq == s.length() - 1) {
                throw new IllegalArgumentException("device entry '" + s + "' is not name=ip[+ip...][/ip[+ip...]...]");
            }
            List<List<Inet4Address>> ports = new ArrayList<>();
            for (String port : s.substring(eq + 1).split("/", -1)) {
                if (port.isBlank()) {
                    throw new IllegalArgumentException("device entry '" + s + "' has a port with no address");
                }
                List<Inet4Address> addrs = new ArrayList<>();
                for (String a : port.split("\\+")) {
                    addrs.add(parseIpv4(a.trim()));
                }
                ports.add(addrs);
            }
            out.add(new DeviceConfig(s.substring(0, eq).trim(), ports));
        }
        if (out.stream().map(DeviceConfig::name).distinct().count() != out.size()) {
            throw new IllegalArgumentException("device names must be unique: " + spec);
        }
        if (out.stream().flatMap(d -> d.addresses().stream()).distinct().count()
                != out.stream().mapToLong(d -> d.addresses().size()).sum()) {
            throw new IllegalArgumentException("an address belongs to one device only: " + spec);
        }
        return out;
    }

    static Inet4Address parseIpv4(String text) {
        String[] parts = text.split("\\.");
        if (parts.length != 4) {
            throw new IllegalArgumentException("'" + text + "' is not a dotted IPv4 address");
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v;
            try {
                v = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a dotted IPv4 address");
            }
            if (v < 0 || v > 255) {
                throw new IllegalArgumentException("'" + text + "' is not a dotted IPv4 address");
            }
            b[i] = (byte) v;
        }
        try {
            InetAddress a = InetAddress.getByAddress(b);
            if (a.isMulticastAddress() || a.isAnyLocalAddress()) {
                throw new IllegalArgumentException(text + " cannot be a device address (multicast or wildcard)");
            }
            return (Inet4Address) a;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(name).append('=');
        for (int p = 0; p < ports.size(); p++) {
            List<Inet4Address> addrs = ports.get(p);
            sb.append(p == 0 ? "" : "/");
            for (int i = 0; i < addrs.size(); i++) {
                sb.append(i == 0 ? "" : "+").append(addrs.get(i).getHostAddress());
            }
        }
        return sb.toString();
    }
}
