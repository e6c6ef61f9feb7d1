/** Provider conformance suite and multi-process tests. */
package dev.ibex.it;
