package dev.ibex.cm.spi;

/** An opened provider: the root of every resource it creates. Closing it closes them all. */
public interface Fabric extends AutoCloseable {
    /** The provider's name. */
    String providerName();

    @Override
    void close();
}
