package org.heaplab.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.io.DataBlockEncoding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The benchmark's op driven by hand (no JMH, no timing): every seek lands on the row it asked for. */
class EncodingSeekBenchmarkTest {
    @ParameterizedTest
    @EnumSource(DataBlockEncoding.class)
    void everySeekFindsItsRowInOneFullBlock(DataBlockEncoding encoding) {
        for (int valueSize : new int[] {16, 1000}) {
            for (String where : new String[] {"heap", "direct"}) {
                EncodingSeekBenchmark b = new EncodingSeekBenchmark();
                b.encoding = encoding;
                b.valueSize = valueSize;
                b.block = where;
                b.setUp();
                int cells = b.cellsInBlock();
                assertTrue(valueSize == 16 ? cells > 500 : cells > 40 && cells < 100, "cells " + cells);
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < cells; i++) {
                    byte[] target = b.nextTarget();
                    Cell c = b.seekToRow();
                    assertArrayEquals(target, c.row(), "the seek lands on the row asked for");
                    assertEquals(valueSize, c.valueLength());
                    assertTrue(seen.add(new String(c.row())), "each op seeks another row");
                }
                assertEquals(cells, seen.size());
            }
        }
    }

    @Test
    void rejectsAnUnknownBlockPlace() {
        EncodingSeekBenchmark b = new EncodingSeekBenchmark();
        b.encoding = DataBlockEncoding.NONE;
        b.valueSize = 16;
        b.block = "disk";
        assertThrows(IllegalArgumentException.class, b::setUp);
    }
}
