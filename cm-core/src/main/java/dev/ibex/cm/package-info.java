/** The Ibex framework: event loops, endpoints and their state machines, callbacks, buffer pools. */
package dev.ibex.cm;
