package org.heaplab.core.region;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;
import org.heaplab.core.io.AtomicFiles;

/**
 * A major compaction's record that it is removing its inputs, on disk while it does. Why: a major compaction
 * drops delete markers together with the puts they mask, so its output is right beside all of its inputs
 * or none of them, never beside some: were the newest input (holding the markers) removed and an older one
 * (holding the puts) still there after a crash, deleted rows would come back. The record is written once the
 * output is published and before the first input is removed, and removed after the last; opening the store
 * finishes a removal that a crash cut short ({@link #finishInterrupted}). HBase records the same in the
 * WAL (its compaction marker) and completes it at replay.
 *
 * <p>File: {@code <family dir>/.compaction}, java.util.Properties written crash-safe ({@link AtomicFiles}):
 * {@code output} (the merged file's name) and {@code inputs} (the input files' names, '/'-separated).
 *
 * <p>Thread safety: the store's compaction lock (or its open) serializes every call for one family.
 */
final class CompactionRecord {
    static final String FILE = ".compaction";
    private static final Logger LOG = Logger.getLogger(CompactionRecord.class.getName());

    private CompactionRecord() {
    }

    /** Records that {@code inputs} (in {@code familyDir}) are being removed now that {@code output} is published. */
    static void write(Path familyDir, Path output, List<Path> inputs) throws IOException {
        Properties p = new Properties();
        p.setProperty("output", output.getFileName().toString());
        p.setProperty("inputs", String.join("/", inputs.stream().map(f -> f.getFileName().toString()).toList()));
        StringWriter w = new StringWriter();
        p.store(w, "HeapLab: a major compaction removing its inputs");
        AtomicFiles.write(familyDir.resolve(FILE), w.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Every input is removed: the record goes. */
    static void remove(Path familyDir) throws IOException {
        Files.deleteIfExists(familyDir.resolve(FILE));
        AtomicFiles.fsyncDirectory(familyDir);
    }

    /**
     * Removes the inputs of a compaction whose removal was cut short (a crash, a failed delete), then the
     * record. Inputs are removed only if the output is there (it always is: the record comes after it).
     */
    static void finishInterrupted(Path familyDir) throws IOException {
        Path record = familyDir.resolve(FILE);
        if (!Files.exists(record)) {
            return;
        }
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(record, StandardCharsets.ISO_8859_1)));
        String output = p.getProperty("output", "");
        String inputs = p.getProperty("inputs", "");
        if (!output.isEmpty() && Files.exists(familyDir.resolve(output))) {
            int removed = 0;
            for (String input : inputs.isEmpty() ? new String[0] : inputs.split("/")) {
                removed += Files.deleteIfExists(familyDir.resolve(input)) ? 1 : 0;
            }
            LOG.info("finished the compaction into " + output + " in " + familyDir + ": removed " + removed
                + " input files a crash had left");
        } else {
            LOG.warning("compaction record " + record + " names output '" + output + "', which is missing; its inputs stay");
        }
        remove(familyDir);
    }
}
