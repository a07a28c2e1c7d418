package org.heaplab.client;

/**
 * A range of rows to read (HBase's Scan): from the start row (inclusive, empty = the first row) to the
 * stop row (exclusive, empty = the end), fetched {@link #setCaching caching} rows per RPC (HBase's
 * hbase.client.scanner.caching; PE uses 30). Not thread safe while being built.
 */
public final class Scan {
    public static final int DEFAULT_CACHING = 100;

    private byte[] startRow = new byte[0];
    private byte[] stopRow = new byte[0];
    private int caching = DEFAULT_CACHING;

    public Scan withStartRow(byte[] row) {
        this.startRow = row.clone();
        return this;
    }

    public Scan withStopRow(byte[] row) {
        this.stopRow = row.clone();
        return this;
    }

    /** Rows per RPC, at least 1. */
    public Scan setCaching(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("scan caching must be at least 1, got " + rows);
        }
        this.caching = rows;
        return this;
    }

    public byte[] startRow() {
        return startRow.clone();
    }

    public byte[] stopRow() {
        return stopRow.clone();
    }

    public int caching() {
        return caching;
    }
}
