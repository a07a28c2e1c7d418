package org.heaplab.tools;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The PE commands this engine runs, with HBase's test class names. */
public enum PeCommand {
    SEQUENTIAL_WRITE("sequentialWrite", "SequentialWriteTest", true, true),
    RANDOM_WRITE("randomWrite", "RandomWriteTest", true, true),
    RANDOM_READ("randomRead", "RandomReadTest", false, false),
    /** Get of row startRow + i, i = 0 .. rows-1. */
    SEQUENTIAL_READ("sequentialRead", "SequentialReadTest", false, false),
    /** One scanner per client from its start row; each measured call is one next() (caching rows per RPC). */
    SCAN("scan", "ScanTest", false, false),
    /** Each measured call scans a random range of 100 rows to its end. */
    SCAN_RANGE_100("scanRange100", "RandomScanWithRange100Test", false, false),
    /** Increment by 1 of row startRow + i, column info0:IncrementTest (creates the table like the writes). */
    INCREMENT("increment", "IncrementTest", false, true);

    private final String cliName;
    private final String testName;
    private final boolean write;
    private final boolean createsTable;

    PeCommand(String cliName, String testName, boolean write, boolean createsTable) {
        this.cliName = cliName;
        this.testName = testName;
        this.write = write;
        this.createsTable = createsTable;
    }

    public String cliName() {
        return cliName;
    }

    /** HBase's test class simple name, e.g. RandomWriteTest. */
    public String testName() {
        return testName;
    }

    /** A put command (sequentialWrite, randomWrite): puts, batched per --multiPut / --autoFlush. */
    public boolean isWrite() {
        return write;
    }

    /** Creates the table when missing (and recreates it for --presplit): the writes and increment. */
    public boolean createsTable() {
        return createsTable;
    }

    public static PeCommand parse(String s) throws UsageException {
        for (PeCommand c : values()) {
            if (c.cliName.equals(s)) {
                return c;
            }
        }
        throw new UsageException("unknown command '" + s + "': use one of " + names());
    }

    static String names() {
        return Arrays.stream(values()).map(PeCommand::cliName).collect(Collectors.joining(", "));
    }
}
