package org.heaplab.core.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The family options' names as HBase spells them, ids stable on disk, one-line errors listing valid values. */
class FamilyOptionsParseTest {
    @Test
    void encodingsParseCaseInsensitivelyAndKeepHBasesIds() {
        assertEquals(DataBlockEncoding.ROW_INDEX_V1, DataBlockEncoding.parse(" row_index_v1 "));
        assertEquals(DataBlockEncoding.DIFF, DataBlockEncoding.parse("Diff"));
        assertEquals(0, DataBlockEncoding.NONE.id);
        assertEquals(3, DataBlockEncoding.DIFF.id);
        assertEquals(7, DataBlockEncoding.ROW_INDEX_V1.id);
        for (DataBlockEncoding e : DataBlockEncoding.values()) {
            assertEquals(e, DataBlockEncoding.ofId(e.id));
        }
        assertNull(DataBlockEncoding.ofId(4), "FAST_DIFF is not in this engine");
    }

    @Test
    void bloomTypesAndCodecsParse() {
        assertEquals(BloomType.ROW, BloomType.parse("row"));
        assertEquals(BloomType.NONE, BloomType.parse("NONE"));
        assertEquals(Compression.SNAPPY, Compression.parse("snappy"));
    }

    @Test
    void unknownNamesAreOneLineErrorsListingTheSupportedOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> DataBlockEncoding.parse("FAST_DIFF"));
        assertTrue(e.getMessage().contains("FAST_DIFF") && e.getMessage().contains("NONE, DIFF, ROW_INDEX_V1"),
            e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> BloomType.parse("ROWCOL"));
        assertTrue(e.getMessage().contains("ROWCOL") && e.getMessage().contains("NONE, ROW"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Compression.parse("LZ4"));
        assertTrue(e.getMessage().contains("LZ4") && e.getMessage().contains("NONE, SNAPPY"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }
}
