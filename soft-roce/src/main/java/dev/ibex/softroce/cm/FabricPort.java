package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.softroce.mad.CmMad;
import dev.ibex.softroce.mad.MadHeader;
import dev.ibex.softroce.transport.SoftDevice;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * One address of a {@link SoftDevice} (a GID of one of its ports) as a CM port: MADs go out through the device's
 * QP1.
 */
final class FabricPort implements CmDevice {
    private final SoftDevice device;
    private final int index;
    private final int ip;
    private final InetAddress address;

    FabricPort(SoftDevice device, int index) {
        this.device = device;
        this.index = index;
        this.ip = device.addresses()[index];
        this.address = Ipv4.toInetAddress(ip);
    }

    SoftDevice softDevice() {
        return device;
    }

    int ip() {
        return ip;
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public int gidIndex() {
        return device.gidIndexOf(ip);
    }

    @Override
    public int portNum() {
        return device.portOf(ip);
    }

    @Override
    public Object deviceKey() {
        return device;
    }

    @Override
    public long caGuid() {
        return device.device().nodeGuid();
    }

    @Override
    public void send(InetAddress destination, CmMad mad) {
        if (!(destination instanceof Inet4Address)) {
            return; // the soft devices speak IPv4 only
        }
        byte[] b = new byte[MadHeader.MAD_SIZE]; // CM traffic is rare: a fresh buffer per MAD keeps send() reentrant
        MemorySegment s = MemorySegment.ofArray(b);
        mad.encode(s, 0);
        device.madPort().send(ip, Ipv4.toInt(destination), s, 0);
    }

    @Override
    public DeviceContext context() {
        return device;
    }

    @Override
    public Mtu activeMtu() {
        return device.activeMtu();
    }

    @Override
    public String toString() {
        return device.name() + "/" + address.getHostAddress();
    }
}
