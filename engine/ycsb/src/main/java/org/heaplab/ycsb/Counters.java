package org.heaplab.ycsb;

import java.io.IOException;
import java.util.Properties;

/**
 * A store's atomic add to a counter column: what {@link IncrementWorkload} needs beside YCSB's DB, whose
 * interface has no increment. One per YCSB client thread, closed when the workload ends.
 */
public interface Counters extends AutoCloseable {

    /** Adds {@code amount} to the 8-byte counter at (row, family, column) of {@code table}. */
    void increment(String table, byte[] row, byte[] family, byte[] column, long amount) throws IOException;

    @Override
    void close();

    /**
     * Implemented by a YCSB binding (the class YCSB's {@code -db} names) whose store has increments: the
     * engine's {@link EngineClient}, and Apache HBase's binding in infra/apache-hbase.
     */
    interface Source {
        Counters openCounters(Properties props) throws IOException;
    }
}
