package org.heaplab.tools;

/** A command-line mistake: printed as one "ERROR: ..." line plus the usage, exit code 2. */
public final class UsageException extends Exception {
    public UsageException(String message) {
        super(message);
    }
}
