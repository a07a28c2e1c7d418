package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PeDataTest {
    @Test
    void rowKeysAre26ZeroPaddedDigits() {
        assertEquals("00000000000000000000000000", new String(PeData.rowKey(0), StandardCharsets.US_ASCII));
        assertEquals("00000000000000000000012345", new String(PeData.rowKey(12345), StandardCharsets.US_ASCII));
        assertEquals(26, PeData.rowKey(Integer.MAX_VALUE).length);
    }

    @Test
    void valuesAreRunsOfEightLetters() {
        byte[] v = PeData.value(new Random(1), 200);
        assertEquals(200, v.length);
        for (int i = 0; i < 192; i += 8) {
            for (int j = 1; j < 8; j++) {
                assertEquals(v[i], v[i + j]);
            }
            assertTrue(v[i] >= 'A' && v[i] <= 'Z');
        }
        assertEquals(13, PeData.value(new Random(2), 13).length);
        assertEquals(0, PeData.value(new Random(3), 0).length);
    }

    @Test
    void splitsDivideTotalRowsEvenly() {
        byte[][] s = PeData.splits(4, 8000);
        assertEquals(3, s.length);
        assertArrayEquals(PeData.rowKey(2000), s[0]);
        assertArrayEquals(PeData.rowKey(4000), s[1]);
        assertArrayEquals(PeData.rowKey(6000), s[2]);
        assertEquals(0, PeData.splits(1, 100).length);
        assertEquals(0, PeData.splits(0, 100).length);
    }

    @Test
    void randomRowsStayInRange() {
        Random r = new Random(5);
        for (int i = 0; i < 10_000; i++) {
            int row = PeData.randomRow(r, 777);
            assertTrue(row >= 0 && row < 777);
        }
    }
}
