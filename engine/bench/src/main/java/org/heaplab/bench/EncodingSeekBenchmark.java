package org.heaplab.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.encoding.BlockSeeker;
import org.heaplab.core.encoding.DataBlockEncoder;
import org.heaplab.core.encoding.Encodings;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.io.StorageConstants;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * In-block seek per data block encoding (lab 06): one op = what a cached random get does inside its
 * data block: a new seeker over the block, {@code seekToRow} of a row that is in it, and the cell it
 * lands on. The block is one 64 KB block of PE-shaped cells (26-byte rows, family info0, qualifier 0,
 * one cell per row), encoded once in the trial set-up and held on the heap or in direct memory (as an
 * LruBlockCache or a BucketCache slot would hold it).
 *
 * <p>What to expect (hbase-internals.md section 6): NONE and DIFF walk from the first cell (half the
 * block per seek on average; DIFF also rebuilds every key and copies the found cell onto the heap),
 * ROW_INDEX_V1 binary-searches its row offsets, so its advantage grows with the cells per block, i.e.
 * as values get smaller. {@code -prof gc} shows DIFF's per-op garbage.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseG1GC"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class EncodingSeekBenchmark {
    @Param({"NONE", "DIFF", "ROW_INDEX_V1"})
    public DataBlockEncoding encoding;

    /** Value bytes per cell: 16 B values give ~900 cells per 64 KB block, 1000 B about 60. */
    @Param({"16", "64", "256", "1000"})
    public int valueSize;

    /** Where the cached block lives: {@code heap} (byte[]) or {@code direct} (off-heap cache memory). */
    @Param("heap")
    public String block;

    private ByteBuffer encoded;
    private byte[][] targets;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        if (!block.equals("heap") && !block.equals("direct")) {
            throw new IllegalArgumentException("block must be heap or direct, got " + block);
        }
        Random random = new Random(42);
        // sorted distinct rows, enough to fill a block whatever the value size
        TreeMap<String, KeyValue> byRow = new TreeMap<>();
        int wanted = StorageConstants.DATA_BLOCK_SIZE / Math.max(1, valueSize) + 2000;
        while (byRow.size() < wanted) {
            KeyValue kv = PeCells.cell(random, valueSize);
            byRow.put(new String(kv.row(), StandardCharsets.US_ASCII), kv);
        }
        DataBlockEncoder encoder = Encodings.encoder(encoding);
        List<byte[]> rows = new ArrayList<>();
        for (KeyValue kv : byRow.values()) {
            encoder.append(kv);
            rows.add(kv.row());
            if (encoder.encodedSize() >= StorageConstants.DATA_BLOCK_SIZE) {
                break; // the writer closes a block at 64 KB
            }
        }
        byte[] bytes = encoder.finishBlock();
        if (block.equals("direct")) {
            encoded = ByteBuffer.allocateDirect(bytes.length);
            encoded.put(bytes).flip();
        } else {
            encoded = ByteBuffer.wrap(bytes);
        }
        Collections.shuffle(rows, random);
        targets = rows.toArray(new byte[0][]);
        next = 0;
    }

    /** Rows in the block (its cells: one per row). */
    int cellsInBlock() {
        return targets.length;
    }

    /** The row the next op seeks. */
    byte[] nextTarget() {
        return targets[next];
    }

    @Benchmark
    public Cell seekToRow() {
        byte[] row = targets[next];
        next = next + 1 == targets.length ? 0 : next + 1;
        BlockSeeker seeker = Encodings.seeker(encoding, encoded);
        seeker.seekToRow(row);
        return seeker.current();
    }
}
