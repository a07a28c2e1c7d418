package org.heaplab.core.wal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.io.StorageConstants;

/**
 * The region server's write-ahead log: a directory of numbered WAL files, one of them open for
 * appends. Assigns sequence ids, rolls files at a size, and deletes a rolled file once every region
 * has flushed past its highest sequence id.
 *
 * <p>Bookkeeping (as HBase's SequenceIdAccounting): for each region with unflushed edits, the lowest
 * sequence id of those edits. When a flush takes its snapshot ({@link #startFlush}) the region's entry
 * moves aside until the flush is durable ({@link #completeFlush}) or fails ({@link #abortFlush}). A
 * rolled file is obsolete when its highest sequence id is below every remaining entry.
 *
 * <p>Thread safety: every public method is synchronized; appends are serialized (group commit is a
 * later issue). Callers must take a region's snapshot under a lock that excludes that region's
 * appends, so that no edit lands between the snapshot and {@link #startFlush}.
 */
public final class Wal implements Closeable {
    private static final Logger LOG = Logger.getLogger(Wal.class.getName());

    private final Path dir;
    private final long rollSize;
    private final boolean hsync;
    /** Rolled (closed) files: file number -> highest seq id in the file. */
    private final TreeMap<Long, Long> rolled = new TreeMap<>();
    private final Map<String, Long> oldestUnflushed = new HashMap<>();
    private final Map<String, Long> oldestFlushing = new HashMap<>();
    private WalWriter writer;
    private long writerNumber;
    private long writerHighestSeq = -1;
    private long nextSeqId;
    private boolean closed;

    /**
     * Starts a new WAL file in {@code dir}, numbered after any existing file (which this instance
     * neither reads nor deletes: replay them first with {@link WalReader}).
     *
     * @param firstSeqId the sequence id the first append gets (above every id already used)
     */
    public Wal(Path dir, long rollSize, boolean hsync, long firstSeqId) throws IOException {
        this.dir = dir;
        this.rollSize = rollSize;
        this.hsync = hsync;
        this.nextSeqId = firstSeqId;
        Files.createDirectories(dir);
        List<Path> existing = listFiles(dir);
        long last = existing.isEmpty() ? 0 : fileNumber(existing.get(existing.size() - 1));
        openWriter(last + 1);
    }

    /** WAL files in {@code dir}, oldest first. */
    public static List<Path> listFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(StorageConstants.WAL_FILE_PREFIX))
                .filter(p -> !p.getFileName().toString().endsWith(".tmp"))
                .sorted((a, b) -> Long.compare(fileNumber(a), fileNumber(b)))
                .toList();
        }
    }

    static long fileNumber(Path p) {
        String name = p.getFileName().toString().substring(StorageConstants.WAL_FILE_PREFIX.length());
        try {
            return Long.parseLong(name);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("not a WAL file name: " + p, e);
        }
    }

    static String fileName(long number) {
        return StorageConstants.WAL_FILE_PREFIX + String.format("%020d", number);
    }

    private void openWriter(long number) throws IOException {
        writer = WalWriter.create(dir.resolve(fileName(number)), hsync);
        writerNumber = number;
        writerHighestSeq = -1;
    }

    /**
     * Appends one batch of one region under a new sequence id and syncs it (see {@link WalWriter}).
     * The cells are written straight from wherever they live (a heap array or a pooled direct request
     * buffer: no intermediate copy of the cell bytes); they are not retained after this returns.
     *
     * @return the batch's sequence id
     */
    public synchronized long append(String table, String region, List<? extends Cell> cells) throws IOException {
        if (closed) {
            throw new IOException("WAL " + dir + " is closed");
        }
        long seqId = nextSeqId;
        long length = writer.append(seqId, table, region, cells);
        nextSeqId++;
        writerHighestSeq = seqId;
        oldestUnflushed.putIfAbsent(region, seqId);
        if (length >= rollSize) {
            roll();
        }
        return seqId;
    }

    /** Closes the current file and starts the next one; deletes files that became obsolete. */
    public synchronized void roll() throws IOException {
        if (writerHighestSeq < 0) {
            return;
        }
        writer.close();
        rolled.put(writerNumber, writerHighestSeq);
        openWriter(writerNumber + 1);
        deleteObsoleteFiles();
    }

    /** The region took its memstore snapshot: its unflushed edits now belong to that flush. */
    public synchronized void startFlush(String region) {
        Long oldest = oldestUnflushed.remove(region);
        if (oldest != null) {
            oldestFlushing.merge(region, oldest, Math::min);
        }
    }

    /** The region's flush is durable in a store file: its WAL edits up to the snapshot are obsolete. */
    public synchronized void completeFlush(String region) throws IOException {
        oldestFlushing.remove(region);
        deleteObsoleteFiles();
    }

    /** The region's flush failed: its snapshot's edits are unflushed again. */
    public synchronized void abortFlush(String region) {
        Long oldest = oldestFlushing.remove(region);
        if (oldest != null) {
            oldestUnflushed.merge(region, oldest, Math::min);
        }
    }

    /** The region is gone (table dropped): its edits need not be kept. */
    public synchronized void forgetRegion(String region) throws IOException {
        oldestUnflushed.remove(region);
        oldestFlushing.remove(region);
        deleteObsoleteFiles();
    }

    /** Rolled files still kept, for tests and metrics. */
    public synchronized int rolledFileCount() {
        return rolled.size();
    }

    private void deleteObsoleteFiles() throws IOException {
        long lowestNeeded = Long.MAX_VALUE;
        for (long s : oldestUnflushed.values()) {
            lowestNeeded = Math.min(lowestNeeded, s);
        }
        for (long s : oldestFlushing.values()) {
            lowestNeeded = Math.min(lowestNeeded, s);
        }
        List<Long> obsolete = new ArrayList<>();
        for (Map.Entry<Long, Long> e : rolled.entrySet()) {
            if (e.getValue() < lowestNeeded) {
                obsolete.add(e.getKey());
            }
        }
        for (long n : obsolete) {
            Files.deleteIfExists(dir.resolve(fileName(n)));
            rolled.remove(n);
            LOG.fine("deleted obsolete WAL " + fileName(n));
        }
    }

    /**
     * Closes the WAL. With {@code deleteAll} (every region flushed, nothing left to replay) every WAL
     * file is removed; otherwise the files stay for replay at the next open.
     */
    public synchronized void close(boolean deleteAll) throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        writer.close();
        if (deleteAll) {
            for (Path p : listFiles(dir)) {
                Files.deleteIfExists(p);
            }
            rolled.clear();
        }
    }

    /** Closes the WAL and keeps its files (as after a crash). */
    @Override
    public void close() throws IOException {
        close(false);
    }

    /** True while regions have edits that only the WAL holds. */
    public synchronized boolean hasUnflushedEdits() {
        return !oldestUnflushed.isEmpty() || !oldestFlushing.isEmpty();
    }
}
