package org.heaplab.client;

import java.net.ConnectException;

/** Nothing listens at the region server's address: the message tells the user how to start one. */
public final class NoRegionServerException extends ConnectException {
    public NoRegionServerException(String host, int port) {
        super("no region server at " + host + ":" + port
            + " (connection refused); start one with bin/engine-daemon start regionserver");
    }
}
