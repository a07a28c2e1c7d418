package org.heaplab.tools;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The PE commands this engine runs, with HBase's test class names. */
public enum PeCommand {
    SEQUENTIAL_WRITE("sequentialWrite", "SequentialWriteTest", true),
    RANDOM_WRITE("randomWrite", "RandomWriteTest", true),
    RANDOM_READ("randomRead", "RandomReadTest", false);

    private final String cliName;
    private final String testName;
    private final boolean write;

    PeCommand(String cliName, String testName, boolean write) {
        this.cliName = cliName;
        this.testName = testName;
        this.write = write;
    }

    public String cliName() {
        return cliName;
    }

    /** HBase's test class simple name, e.g. RandomWriteTest. */
    public String testName() {
        return testName;
    }

    public boolean isWrite() {
        return write;
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
