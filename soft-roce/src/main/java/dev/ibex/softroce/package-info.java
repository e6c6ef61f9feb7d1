/** The software RoCEv2 provider: RDMA CM and verbs in pure Java over UDP sockets. */
package dev.ibex.softroce;
