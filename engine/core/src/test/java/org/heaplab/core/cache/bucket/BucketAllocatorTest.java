package org.heaplab.core.cache.bucket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BucketAllocatorTest {
    private static final int KB = 1024;
    /** Three small classes: buckets of 16 KB hold 16, 8 or 4 slots. */
    private static final int[] SMALL = {KB, 2 * KB, 4 * KB};
    private static final long BUCKET = 16 * KB;

    @Test
    void defaultsAreHBasesFourteenClassesAndBucketsOfFourTimesTheLargest() {
        int[] d = BucketSizes.defaults();
        assertArrayEquals(new int[] {5 * KB, 9 * KB, 17 * KB, 33 * KB, 41 * KB, 49 * KB, 57 * KB, 65 * KB, 97 * KB,
            129 * KB, 193 * KB, 257 * KB, 385 * KB, 513 * KB}, d);
        assertEquals(4L * 513 * KB, BucketAllocator.bucketCapacity(d));
        assertEquals(14L * 4 * 513 * KB, BucketAllocator.minimumBytes(d));
    }

    @Test
    void bucketIStartsInClassIAndTheRestInTheLargest() {
        int[] d = BucketSizes.defaults();
        BucketAllocator a = new BucketAllocator(20 * BucketAllocator.bucketCapacity(d), d);
        BucketAllocator.ClassStats[] s = a.classStats();
        for (int c = 0; c < 13; c++) {
            assertEquals(1, s[c].buckets(), "class " + c);
            assertEquals(c, a.sizeClassOfBucket(c));
        }
        assertEquals(7, s[13].buckets());
        assertEquals(13, a.sizeClassOfBucket(19));
    }

    @Test
    void aBlockRoundsUpToTheSmallestClassThatFits() {
        BucketAllocator a = new BucketAllocator(20 * BucketAllocator.bucketCapacity(BucketSizes.defaults()),
            BucketSizes.defaults());
        assertEquals(0, a.sizeClassOf(1));
        assertEquals(0, a.sizeClassOf(5 * KB));
        assertEquals(1, a.sizeClassOf(5 * KB + 1));
        assertEquals(7, a.sizeClassOf(64 * KB + 300), "a 64 KB data block with its header fits 65 KB");
        assertEquals(8, a.sizeClassOf(65 * KB + 1), "just over 65 KB costs a 97 KB slot");
        assertEquals(-1, a.sizeClassOf(513 * KB + 1));
        a.allocate(65 * KB + 1);
        assertEquals(97 * KB, a.usedBytes());
        assertThrows(IllegalArgumentException.class, () -> a.allocate(513 * KB + 1));
    }

    @Test
    void slotsAreDistinctAndFreeingGivesTheSlotBack() {
        BucketAllocator a = new BucketAllocator(3 * BUCKET, SMALL);
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            long o = a.allocate(1000);
            assertTrue(o >= 0 && o < BUCKET && o % KB == 0, "class 0 lives in bucket 0: " + o);
            assertTrue(!offsets.contains(o), "slot handed out twice: " + o);
            offsets.add(o);
        }
        assertEquals(16 * KB, a.usedBytes());
        assertEquals(KB, a.free(offsets.get(3)));
        assertEquals(offsets.get(3), a.allocate(KB), "the freed slot is reused");
        a.free(offsets.get(5));
        assertThrows(IllegalStateException.class, () -> a.free(offsets.get(5)), "double free");
        assertThrows(IllegalArgumentException.class, () -> a.free(KB + 1), "not a slot start");
    }

    @Test
    void aBucketChangesClassOnlyWhenCompletelyFreeAndNeverTheLastOfAClass() {
        // buckets: 0 -> 1 KB, 1 -> 2 KB, 2, 3, 4 -> 4 KB
        BucketAllocator a = new BucketAllocator(5 * BUCKET, SMALL);
        long[] big = new long[5];
        for (int i = 0; i < 5; i++) {
            big[i] = a.allocate(4 * KB); // bucket 2 full (4 slots), then one block in bucket 3
        }
        assertEquals(2, a.bucketIndex(big[0]));
        assertEquals(3, a.bucketIndex(big[4]), "partly used buckets fill before empty ones");
        for (int i = 0; i < 16; i++) {
            a.allocate(KB);
        }
        long taken = a.allocate(KB); // class 0 full: takes the empty bucket 4 from class 2
        assertEquals(4, a.bucketIndex(taken));
        assertEquals(1, a.reassignments());
        assertEquals(0, a.sizeClassOfBucket(4));
        for (int i = 0; i < 15; i++) {
            a.allocate(KB);
        }
        assertEquals(BucketAllocator.NO_SPACE, a.allocate(KB),
            "bucket 3 holds one 4 KB block: it keeps its class; bucket 1 is the last of its class");
        a.free(big[4]); // bucket 3 is empty now
        long moved = a.allocate(KB);
        assertNotEquals(BucketAllocator.NO_SPACE, moved);
        assertEquals(3, a.bucketIndex(moved));
        assertEquals(2, a.reassignments());
        assertEquals(1, a.classStats()[2].buckets(), "class 2 keeps bucket 2");
    }

    @Test
    void tooLittleMemoryForOneBucketPerClassIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new BucketAllocator(2 * BUCKET, SMALL));
    }
}
