package org.heaplab.core.memstore;

import java.util.concurrent.atomic.LongAdder;

/** Server-wide memstore counters, updated by every memstore of one factory (for the metrics). */
final class MemstoreCounters {
    final LongAdder cells = new LongAdder();
    final LongAdder dataBytes = new LongAdder();
    final LongAdder flattenedSegments = new LongAdder();
}
