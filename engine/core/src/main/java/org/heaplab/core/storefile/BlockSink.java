package org.heaplab.core.storefile;

import java.io.IOException;

/** Where a store-file writer's helpers (index, bloom) write their blocks: frames and appends one. */
@FunctionalInterface
interface BlockSink {
    BlockLocation write(BlockKind kind, byte[] raw) throws IOException;
}
