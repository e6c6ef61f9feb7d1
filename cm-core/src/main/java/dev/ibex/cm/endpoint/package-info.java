/**
 * Endpoints and their state machines: {@link dev.ibex.cm.endpoint.Connection} (RC, active or accepted),
 * {@link dev.ibex.cm.endpoint.Listener}, {@link dev.ibex.cm.endpoint.Datagram} (UD with SIDR resolution) and its
 * {@link dev.ibex.cm.endpoint.Membership multicast memberships}. Each machine is an explicit table (state × input
 * → next state and action) that tests walk cell by cell; every state has a terminal transition for every CM error
 * event, for close and for its timeout, so a connect can fail but never hang. All callbacks of an endpoint run on
 * its event loop.
 */
package dev.ibex.cm.endpoint;
