/**
 * Capture files of RoCEv2 traffic that tshark decodes without capture privileges: pcap with
 * LINKTYPE_RAW (101) records holding a synthetic IPv4 and UDP header in front of each RoCEv2 UDP payload.
 */
package dev.ibex.softroce.pcap;
