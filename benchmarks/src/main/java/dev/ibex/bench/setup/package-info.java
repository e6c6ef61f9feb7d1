/**
 * Connection setup on loopback, one interface ({@link dev.ibex.bench.setup.SetupSide}) and three sides: Ibex's
 * callback API on soft-roce, TCP connect/accept and a raw UDP REQ/REP/RTU handshake (the floor of a datagram CM).
 */
package dev.ibex.bench.setup;
