package org.heaplab.ycsb;

/** A mistake on the command line: one line, exit code 2. */
final class UsageException extends Exception {
    UsageException(String message) {
        super(message);
    }
}
