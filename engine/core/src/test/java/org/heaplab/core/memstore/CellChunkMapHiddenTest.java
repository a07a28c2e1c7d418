package org.heaplab.core.memstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hidden test of the exercise chunkmap-flatten (engine/exercises.yml: the student edition leaves this file
 * out). What the public CompactingIndexTest does not ask: an empty segment, and segments whose entries end
 * exactly at an index piece's end, one past it, and across several pieces and data chunks, each read back
 * in order, from the start and from every cell near a boundary.
 */
@Timeout(60)
class CellChunkMapHiddenTest {
    private static final int CHUNK = 4096; // 341 entries of 12 bytes per index piece
    private static final int PER_PIECE = CHUNK / CellChunkMap.ENTRY_BYTES;
    private static final byte[] F = "f".getBytes(StandardCharsets.US_ASCII);

    private static KeyValue cell(int i) {
        byte[] row = String.format("r%05d", i).getBytes(StandardCharsets.US_ASCII);
        return KeyValue.create(row, F, "q".getBytes(StandardCharsets.US_ASCII), 1, KeyValue.Type.PUT,
            ("value-" + i).getBytes(StandardCharsets.US_ASCII));
    }

    private static List<KeyValue> read(Iterator<Cell> it, MslabCellStorage storage) {
        List<KeyValue> out = new ArrayList<>();
        it.forEachRemaining(c -> out.add(storage.export(c)));
        return out;
    }

    @ParameterizedTest(name = "offheap={0}")
    @ValueSource(booleans = {false, true})
    void anEmptySegmentFlattensToAnEmptyMap(boolean offheap) {
        MslabCellStorage storage = new MslabCellStorage(MslabCellStorageTest.pool(offheap, CHUNK, 16), 512);
        CellChunkMap map = CellChunkMap.flatten(new SkipListSegment(), storage);
        assertEquals(0, map.cellCount());
        assertFalse(map.iterator().hasNext());
        assertFalse(map.tailIterator(cell(0)).hasNext());
        storage.close();
    }

    @ParameterizedTest(name = "cells={0}")
    @ValueSource(ints = {1, PER_PIECE - 1, PER_PIECE, PER_PIECE + 1, 2 * PER_PIECE, 3 * PER_PIECE + 7})
    void everyCellReadsBackInOrderAcrossPiecesAndChunks(int cells) {
        for (boolean offheap : new boolean[] {false, true}) {
            MslabCellStorage storage = new MslabCellStorage(MslabCellStorageTest.pool(offheap, CHUNK, 256), 512);
            SkipListSegment segment = new SkipListSegment();
            List<KeyValue> expected = new ArrayList<>();
            for (int i = cells - 1; i >= 0; i--) { // inserted backwards: the map must be in key order
                segment.put(storage.copyIn(cell(i)));
            }
            for (int i = 0; i < cells; i++) {
                expected.add(cell(i));
            }
            CellChunkMap map = CellChunkMap.flatten(segment, storage);
            assertEquals(cells, map.cellCount());
            assertEquals(expected, read(map.iterator(), storage), "offheap=" + offheap);
            for (int k : new int[] {0, PER_PIECE - 1, PER_PIECE, PER_PIECE + 1, cells - 1}) {
                if (k >= 0 && k < cells) {
                    assertEquals(expected.subList(k, cells), read(map.tailIterator(cell(k)), storage),
                        "from cell " + k + ", offheap=" + offheap);
                }
            }
            storage.close();
        }
    }
}
