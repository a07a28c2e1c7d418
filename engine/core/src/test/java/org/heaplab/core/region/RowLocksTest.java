package org.heaplab.core.region;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A put's row locks, taken from its cells where they lie: the same stripes a get of each row reads under. */
@Timeout(30)
class RowLocksTest {
    private static Cell direct(String row) {
        KeyValue kv = KeyValue.create(row.getBytes(StandardCharsets.US_ASCII), "f".getBytes(StandardCharsets.US_ASCII),
            "q".getBytes(StandardCharsets.US_ASCII), 1, KeyValue.Type.PUT, new byte[10]);
        ByteBuffer b = ByteBuffer.allocateDirect(kv.getLength());
        b.put(0, kv.getBuffer(), kv.getOffset(), kv.getLength());
        return new ByteBufferKeyValue(b, 0, kv.getLength());
    }

    @Test
    void aBatchLocksEveryRowsStripeOnceAndReleasesThem() {
        RowLocks locks = new RowLocks();
        List<Cell> cells = new ArrayList<>();
        for (int i = 0; i < 300; i++) { // more rows than stripes, rows repeated: shared stripes must not self-deadlock
            cells.add(direct("row-" + (i % 200)));
        }
        RowLocks.Held held = locks.lockWriteRowsOf(cells);
        for (Cell c : cells) {
            Lock read = locks.readLock(c.row());
            assertFalse(read.tryLock(), "a get of " + new String(c.row(), StandardCharsets.US_ASCII) + " waits for the put");
        }
        locks.unlockWrite(held);
        for (Cell c : cells) {
            Lock read = locks.readLock(c.row());
            assertTrue(read.tryLock());
            read.unlock();
        }
        RowLocks.Held again = locks.lockWriteRowsOf(List.of(cells.get(0), cells.get(0)));
        locks.unlockWrite(again);
    }
}
