package dev.ibex.cm.loop;

/**
 * What an {@link EventLoopGroup}'s loops hold on their devices now, summed over loops and devices: registered pool
 * slabs and their bytes, buffers (allocated and in use) and the CQs the loops read. It shows a pool or the shared
 * CQs growing under load and shrinking after it ({@code BufferPool.Options.idleTime}, {@link LoopOptions#queueIdleTime}).
 *
 * @param slabs registered pool slabs
 * @param registeredBytes bytes of registered pool memory
 * @param buffers buffers in those slabs
 * @param buffersInUse buffers held by the application or posted to the hardware
 * @param completionQueues CQs the loops read (shared ones and connections' own)
 */
public record Footprint(int slabs, long registeredBytes, int buffers, int buffersInUse, int completionQueues) {
    Footprint plus(Footprint o) {
        return new Footprint(slabs + o.slabs, registeredBytes + o.registeredBytes, buffers + o.buffers,
                buffersInUse + o.buffersInUse, completionQueues + o.completionQueues);
    }
}
