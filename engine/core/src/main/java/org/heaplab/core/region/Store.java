package org.heaplab.core.region;

import java.io.UncheckedIOException;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.storefile.StoreFileTuning;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.heaplab.core.cache.BlockCache;
import org.heaplab.core.cache.ReadPath;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.io.StorageConstants;
import org.heaplab.core.memstore.Memstore;
import org.heaplab.core.storefile.StoreFileReader;
import org.heaplab.core.storefile.StoreFileWriter;
import org.heaplab.core.storefile.Trailer;
import org.heaplab.core.util.CrashPoints;

/**
 * One column family of one region: the active memstore, at most one snapshot being flushed, and the
 * store files, newest first (by max sequence id, then file number).
 *
 * <p>Family options: flushes and compactions write with the family's compression, data block encoding
 * and bloom type ({@link StoreFileWriter.Options}); readers are opened with the server's block cache and
 * {@link ReadPath} and the family's IN_MEMORY flag (the cache's in-memory priority).
 *
 * <p>Thread safety and invariants: the three parts are published together as one immutable
 * {@link View} in a volatile field, so a reader always sees a consistent set (a flushed snapshot leaves
 * the view in the same step its store file enters it). {@link #add} may run concurrently with readers;
 * {@link #snapshot} must be called under the region's update write lock (no concurrent adds); view
 * changes are serialized by this object's monitor; flushes are serialized by the region and
 * compactions by {@link #compact} itself.
 */
final class Store {
    private static final Logger LOG = Logger.getLogger(Store.class.getName());

    /** What a reader sees: files newest first; snapshot null when no flush is in progress. */
    record View(Memstore active, Memstore snapshot, long snapshotSeqId, List<StoreFileReader> files) {
    }

    private static final Comparator<StoreFileReader> NEWEST_FIRST = Comparator
        .comparingLong((StoreFileReader r) -> r.trailer().maxSequenceId())
        .thenComparing(r -> r.path().getFileName().toString()).reversed();

    private final Path familyDir;
    private final Path tmpDir;
    private final StoreFileWriter.Options writeOptions;
    private final boolean inMemory;
    private final BlockCache cache;
    private final ReadPath readPath;
    private final AtomicLong nextFileNumber;
    private final Memstore.Factory memstores;
    private final StoreFileTuning tuning;
    private final Object compactionLock = new Object();
    private volatile View view;

    private Store(Path familyDir, Path tmpDir, TableDescriptor desc, BlockCache cache, ReadPath readPath,
                  List<StoreFileReader> files, long nextFileNumber, Memstore.Factory memstores, StoreFileTuning tuning) {
        this.memstores = memstores;
        this.tuning = tuning;
        this.familyDir = familyDir;
        this.tmpDir = tmpDir;
        this.writeOptions = new StoreFileWriter.Options(desc.compression(), desc.encoding(), desc.bloom());
        this.inMemory = desc.inMemory();
        this.cache = cache;
        this.readPath = readPath;
        this.nextFileNumber = new AtomicLong(nextFileNumber);
        this.view = new View(memstores.create(), null, -1, sorted(files));
    }

    /** Opens the store files in {@code familyDir} (creating it) and clears {@code tmpDir}. */
    static Store open(Path familyDir, Path tmpDir, TableDescriptor desc, BlockCache cache, ReadPath readPath,
                      Memstore.Factory memstores) throws IOException {
        return open(familyDir, tmpDir, desc, cache, readPath, memstores, StoreFileTuning.DEFAULT);
    }

    /** As above, writing new store files with {@code tuning} (index block and bloom sizes from the server's keys). */
    static Store open(Path familyDir, Path tmpDir, TableDescriptor desc, BlockCache cache, ReadPath readPath,
                      Memstore.Factory memstores, StoreFileTuning tuning) throws IOException {
        Files.createDirectories(familyDir);
        CompactionRecord.finishInterrupted(familyDir); // before the files are listed: no input of it is opened
        AtomicFiles.deleteRecursively(tmpDir);
        Files.createDirectories(tmpDir);
        List<StoreFileReader> files = new ArrayList<>();
        long maxNumber = 0;
        try (Stream<Path> s = Files.list(familyDir)) {
            for (Path p : s.filter(p -> p.getFileName().toString().endsWith(StorageConstants.STORE_FILE_SUFFIX))
                .sorted().toList()) {
                files.add(StoreFileReader.open(p, cache, readPath, desc.inMemory()));
                maxNumber = Math.max(maxNumber, fileNumber(p));
            }
        } catch (IOException e) {
            for (StoreFileReader r : files) {
                r.close();
            }
            throw e;
        }
        return new Store(familyDir, tmpDir, desc, cache, readPath, files, maxNumber + 1, memstores, tuning);
    }

    private static long fileNumber(Path p) {
        String n = p.getFileName().toString();
        try {
            return Long.parseLong(n.substring(0, n.length() - StorageConstants.STORE_FILE_SUFFIX.length()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static List<StoreFileReader> sorted(List<StoreFileReader> files) {
        List<StoreFileReader> l = new ArrayList<>(files);
        l.sort(NEWEST_FIRST);
        return List.copyOf(l);
    }

    View view() {
        return view;
    }

    /** Highest sequence id already in store files (-1 when there are none). */
    long flushedSequenceId() {
        long max = -1;
        for (StoreFileReader r : view.files()) {
            max = Math.max(max, r.trailer().maxSequenceId());
        }
        return max;
    }

    /** Copies a cell into the active memstore; returns the change in heap size. */
    long add(Cell kv) {
        return view.active().add(kv);
    }

    /** Memstore bytes: active plus the snapshot being flushed. */
    long memstoreSize() {
        View v = view;
        return v.active().heapSize() + (v.snapshot() == null ? 0 : v.snapshot().heapSize());
    }

    /**
     * Makes the active memstore the snapshot (caller holds the region's update write lock).
     *
     * @return false when there is nothing to snapshot or a snapshot is still pending
     */
    synchronized boolean snapshot(long seqId) {
        View v = view;
        if (v.snapshot() != null || v.active().isEmpty()) {
            return false;
        }
        view = new View(memstores.create(), v.active(), seqId, v.files());
        return true;
    }

    /** Writes the pending snapshot to a new store file; returns the snapshot's heap size (0 if none). */
    long flushSnapshot() throws IOException {
        View v = view;
        Memstore snap = v.snapshot();
        if (snap == null) {
            return 0;
        }
        StoreFileReader reader = writeFile(snap.cells(), v.snapshotSeqId());
        CrashPoints.reach(CrashPoints.FLUSH_AFTER_FILE_WRITTEN);
        synchronized (this) {
            View now = view;
            List<StoreFileReader> files = new ArrayList<>(now.files());
            files.add(reader);
            view = new View(now.active(), null, -1, sorted(files));
        }
        snap.release(); // the store's reference: chunks go back to the pool once readers are done
        return snap.heapSize();
    }

    private StoreFileReader writeFile(Iterable<KeyValue> cells, long maxSeqId) throws IOException {
        String name = String.format("%020d", nextFileNumber.getAndIncrement()) + StorageConstants.STORE_FILE_SUFFIX;
        Path tmp = tmpDir.resolve(name);
        Trailer t;
        try (StoreFileWriter w = new StoreFileWriter(tmp, writeOptions, tuning)) {
            for (KeyValue kv : cells) {
                w.append(kv);
            }
            t = w.finish(maxSeqId);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Path target = familyDir.resolve(name);
        AtomicFiles.publish(tmp, target);
        LOG.fine(() -> "wrote " + target + " with " + t.cellCount() + " cells");
        return StoreFileReader.open(target, cache, readPath, inMemory);
    }

    /**
     * Major compaction: merges every current store file into one (newest version per column, no deletes).
     * The inputs are removed under a {@link CompactionRecord}, so a crash cannot leave some of them.
     */
    void compact() throws IOException {
        synchronized (compactionLock) {
            CompactionRecord.finishInterrupted(familyDir); // a previous removal that failed part way
            List<StoreFileReader> inputs = view.files();
            if (inputs.isEmpty()) {
                return;
            }
            long maxSeq = -1;
            for (StoreFileReader r : inputs) {
                maxSeq = Math.max(maxSeq, r.trailer().maxSequenceId());
            }
            StoreFileReader output;
            try {
                output = writeFile(() -> new CompactionIterator(inputs), maxSeq);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            CrashPoints.reach(CrashPoints.COMPACTION_AFTER_FILE_WRITTEN);
            try {
                CompactionRecord.write(familyDir, output.path(), inputs.stream().map(StoreFileReader::path).toList());
            } catch (IOException e) { // without the record the output must not stay: the inputs are the truth
                output.close();
                Files.deleteIfExists(output.path());
                throw e;
            }
            synchronized (this) {
                View now = view;
                List<StoreFileReader> files = new ArrayList<>(now.files());
                files.removeAll(inputs);
                files.add(output);
                view = new View(now.active(), now.snapshot(), now.snapshotSeqId(), sorted(files));
            }
            for (int i = 0; i < inputs.size(); i++) {
                Files.deleteIfExists(inputs.get(i).path());
                if (i == 0) {
                    CrashPoints.reach(CrashPoints.COMPACTION_AFTER_FIRST_REMOVAL);
                }
                inputs.get(i).close();
            }
            CompactionRecord.remove(familyDir);
        }
    }

    /** Closes every store file (memstores are the region's to flush first). */
    synchronized void close() throws IOException {
        for (StoreFileReader r : view.files()) {
            r.close();
        }
        View v = view;
        view = new View(memstores.create(), null, -1, List.of());
        v.active().release();
        if (v.snapshot() != null) {
            v.snapshot().release();
        }
    }
}
