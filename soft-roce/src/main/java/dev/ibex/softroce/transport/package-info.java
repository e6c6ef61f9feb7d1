/**
 * The soft device, as Linux rxe's one directory: the verbs objects ({@link dev.ibex.softroce.transport.SoftDevice},
 * its QPs, CQs, SRQs, PDs, memory regions and windows, completion channels) and the RC/UD transport behind them —
 * {@code Requester} (rxe_req), {@code Responder} (rxe_resp, with {@code RequestChecks}, {@code ResponderReceive},
 * {@code ResponderMemory}, {@code ResponderResources} and {@code UdReceive}), {@code Completer} (rxe_comp),
 * {@code Sender} (the QP's send task), {@code Dispatcher} (rxe_recv), the GSI and the timers; {@code SoftQueuePair}
 * is the verbs face of a QP (rxe_verbs), with {@code SendPosting}, {@code QpAttributes} (rxe_qp) and
 * {@code QpMulticast}. Packet formats are in {@code dev.ibex.softroce.wire}; this package depends on nothing of the
 * provider's own package (the settings come in as {@link dev.ibex.softroce.transport.TransportSettings}).
 */
package dev.ibex.softroce.transport;
