/** The Reactor face of Ibex: servers, clients, connections, datagrams and multicast as Mono and Flux. */
package dev.ibex.cm.reactive;
