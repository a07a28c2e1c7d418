package org.heaplab.core.encoding;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RowBytesTest {
    @Test
    void heapDirectAndLittleEndianBuffersCompareLikeArraysCompareUnsigned() {
        Random rnd = new Random(3);
        for (int trial = 0; trial < 20_000; trial++) {
            byte[] a = new byte[rnd.nextInt(30)];
            rnd.nextBytes(a);
            byte[] b = rnd.nextBoolean() ? a.clone() : new byte[rnd.nextInt(30)];
            if (b != a && rnd.nextBoolean()) {
                System.arraycopy(a, 0, b, 0, Math.min(a.length, b.length)); // a shared prefix
                if (b.length > 0 && rnd.nextBoolean()) {
                    b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8)); // one bit apart, high bits too
                }
            }
            int expected = Integer.signum(Arrays.compareUnsigned(a, b));
            int pad = rnd.nextInt(5);
            ByteBuffer heap = ByteBuffer.allocate(pad + a.length + 3);
            heap.put(pad, a);
            ByteBuffer direct = ByteBuffer.allocateDirect(pad + a.length + 3);
            direct.put(pad, a);
            assertEquals(expected, Integer.signum(RowBytes.compare(heap, pad, a.length, b)), trial + " heap");
            assertEquals(expected, Integer.signum(RowBytes.compare(direct, pad, a.length, b)), trial + " direct");
            direct.order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(expected, Integer.signum(RowBytes.compare(direct, pad, a.length, b)), trial + " little");
            ByteBuffer slice = ByteBuffer.wrap(new byte[pad + a.length + 3]).slice(1, pad + a.length + 2);
            slice.put(pad, a);
            assertEquals(expected, Integer.signum(RowBytes.compare(slice, pad, a.length, b)), trial + " slice");
        }
    }
}
