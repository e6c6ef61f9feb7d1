/** RSocket client and server transports over Ibex connections. */
module dev.ibex.rsocket {
    requires transitive dev.ibex.cm.reactive;
    requires transitive rsocket.core;
    // ByteBuf and ByteBufAllocator appear in the transports' API
    requires transitive io.netty.buffer;

    exports dev.ibex.rsocket;
}
