/**
 * Event loops: an {@link dev.ibex.cm.loop.EventLoopGroup} of {@link dev.ibex.cm.loop.EventLoop}s over one opened
 * fabric. Each loop is one thread blocking in its provider's poller; it owns a CM event channel and, per device
 * it touches, a {@link dev.ibex.cm.loop.LoopDevice} (protection domain, completion channel, shared CQ, optional
 * SRQ, registered buffer pool). Everything an endpoint does runs on its loop; nothing there blocks.
 */
package dev.ibex.cm.loop;
