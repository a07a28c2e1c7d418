package org.heaplab.client;

import java.net.ConnectException;

/** Nothing listens at the locator's address (region server or master): the message says how to start one. */
public final class NoRegionServerException extends ConnectException {
    public NoRegionServerException(String host, int port) {
        super("no region server at " + host + ":" + port
            + " (connection refused); start one with bin/engine-daemon start regionserver");
    }

    private NoRegionServerException(String message) {
        super(message);
    }

    /** No master of hbase.masters accepted a connection. */
    static NoRegionServerException noMaster(String masters) {
        return new NoRegionServerException("no master at " + masters + " (" + Connection.MASTERS_KEY
            + ", connection refused); start one with bin/engine-daemon start master");
    }
}
