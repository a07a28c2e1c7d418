package org.heaplab.server;

import org.heaplab.core.wal.FsyncFailingDisk;

/**
 * {@code RegionServer.main} on a disk whose fsyncs fail after the first WAL file's header is forced
 * ({@link FsyncFailingDisk}): the child process of {@link WalAbortTest}, which checks how the process ends.
 */
public final class FsyncFailingRegionServer {
    private FsyncFailingRegionServer() {
    }

    public static void main(String[] args) {
        FsyncFailingDisk.install().failForcesAfter(1);
        RegionServer.main(args);
    }
}
