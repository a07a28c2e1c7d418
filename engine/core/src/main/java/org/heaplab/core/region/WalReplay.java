package org.heaplab.core.region;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import org.heaplab.core.wal.Wal;
import org.heaplab.core.wal.WalReader;
import org.heaplab.core.wal.WalRecord;

/**
 * Recovery at open: replays every WAL file, oldest first, into the regions' memstores, flushes what
 * it replayed, then deletes the replayed files (HBase flushes recovered edits the same way). Edits of
 * regions that no longer exist (dropped tables) and edits at or below a region's flushed sequence id
 * are skipped. A torn tail of the newest file is truncated; any other damage fails the open (see
 * {@link WalReader}), leaving every file in place.
 *
 * <p>Thread safety: runs on the opening thread before the server serves anything.
 */
final class WalReplay {
    private static final Logger LOG = Logger.getLogger(WalReplay.class.getName());

    private WalReplay() {
    }

    /**
     * @return the highest sequence id seen in the WAL or in any region's store files (-1 if none)
     */
    static long replay(Path walDir, Map<String, Region> regionsByName, long flushSize, MemstorePressure pressure)
        throws IOException {
        long maxSeq = -1;
        for (Region r : regionsByName.values()) {
            maxSeq = Math.max(maxSeq, r.flushedSequenceId());
        }
        List<Path> files = Wal.listFiles(walDir);
        long replayed = 0;
        long skipped = 0;
        for (int i = 0; i < files.size(); i++) {
            try (WalReader reader = WalReader.open(files.get(i), i == files.size() - 1)) {
                WalRecord rec;
                while ((rec = reader.next()) != null) {
                    maxSeq = Math.max(maxSeq, rec.seqId());
                    Region region = regionsByName.get(rec.region());
                    if (region == null || rec.seqId() <= region.flushedSequenceId()) {
                        skipped++;
                        continue;
                    }
                    region.replay(rec);
                    replayed++;
                    if (region.memstoreSize() >= flushSize) {
                        region.flush();
                    }
                    if (pressure.size() >= pressure.limit()) {
                        flushAll(regionsByName.values());
                    }
                }
            }
        }
        flushAll(regionsByName.values());
        for (Path f : files) {
            Files.deleteIfExists(f);
        }
        if (!files.isEmpty()) {
            LOG.info("replayed " + replayed + " WAL edits (skipped " + skipped + ") from " + files.size() + " files");
        }
        return maxSeq;
    }

    private static void flushAll(Collection<Region> regions) throws IOException {
        for (Region r : regions) {
            r.flush();
        }
    }
}
