package dev.ibex.softroce;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * One configured soft device: its name and its IPv4 addresses. Address {@code i} is GID-table entry {@code i}
 * (the IPv4-mapped address), so a device with two addresses offers two paths (what APM's alternate path needs).
 *
 * @param name device name, e.g. {@code soft0}
 * @param addresses at least one IPv4 address, all distinct
 */
public record DeviceConfig(String name, List<Inet4Address> addresses) {
    public DeviceConfig {
        if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("a device name is letters, digits, '_', '.' or '-', got '" + name + "'");
        }
        if (addresses == null || addresses.isEmpty()) {
            throw new IllegalArgumentException("device " + name + " needs at least one address");
        }
        addresses = List.copyOf(addresses);
        if (addresses.stream().distinct().count() != addresses.size()) {
            throw new IllegalArgumentException("device " + name + " lists an address twice: " + addresses);
        }
    }

    /**
     * Parses {@code name=ip[+ip...][,name=ip[+ip...]...]}, e.g. {@code soft0=127.0.0.2,soft1=127.0.0.3} or
     * {@code soft0=127.0.0.2+127.0.1.2}. Only literal IPv4 addresses are accepted (no name lookups).
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
                throw new IllegalArgumentException("device entry '" + s + "' is not name=ip[+ip...]");
            }
            List<Inet4Address> addrs = new ArrayList<>();
            for (String a : s.substring(eq + 1).split("\\+")) {
                addrs.add(parseIpv4(a.trim()));
            }
            out.add(new DeviceConfig(s.substring(0, eq).trim(), addrs));
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
        for (int i = 0; i < addresses.size(); i++) {
            sb.append(i == 0 ? "" : "+").append(addresses.get(i).getHostAddress());
        }
        return sb.toString();
    }
}
