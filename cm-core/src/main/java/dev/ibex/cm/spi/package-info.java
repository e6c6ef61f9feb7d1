/**
 * The provider SPI: the verbs and RDMA CM object model (fabric, devices, event channels, CM ids, protection
 * domains, memory regions, completion channels and queues, queue pairs, shared receive queues, address
 * handles, pollers) that each provider implements. Names follow librdmacm/libibverbs.
 */
package dev.ibex.cm.spi;
