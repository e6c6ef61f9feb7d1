/**
 * RSocket over Ibex: {@link dev.ibex.rsocket.RdmaClientTransport} and {@link dev.ibex.rsocket.RdmaServerTransport}
 * carry RSocket frames over reliable RDMA connections (cm-reactive's {@code RdmaClient}/{@code RdmaServer}), one frame
 * per RDMA message where it fits, larger frames split across messages ({@link dev.ibex.rsocket.MessageFraming}).
 * Receive demand is the receive credit; sends never overrun the send queue. See the module README.
 */
package dev.ibex.rsocket;
