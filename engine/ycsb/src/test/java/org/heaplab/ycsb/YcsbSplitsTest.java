package org.heaplab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Properties;
import org.heaplab.tools.YcsbKeys;
import org.junit.jupiter.api.Test;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/** admin create --splits=ycsb places its split keys on YCSB's own key names (CoreWorkload's, not a copy). */
class YcsbSplitsTest {
    /** CoreWorkload's key names with its defaults (insertorder=hashed, zeropadding=1). */
    private static final class Keys extends CoreWorkload {
        String key(long n) {
            return buildKeyName(n);
        }
    }

    @Test
    void adminComputesYcsbsKeys() throws Exception {
        Properties p = new Properties();
        Measurements.setProperties(p);
        Keys keys = new Keys();
        keys.init(p);
        for (long n : new long[] {0, 1, 2, 999, 123_456, 99_999_999}) {
            assertEquals(keys.key(n), YcsbKeys.key(n), "record " + n);
        }
    }

    @Test
    void splitsGiveEachRegionAnEqualShare() {
        int rows = 20_000;
        int regions = 8;
        byte[][] splits = YcsbKeys.splits(regions, rows);
        assertEquals(regions - 1, splits.length);
        int[] perRegion = new int[regions];
        for (int i = 0; i < rows; i++) {
            byte[] key = YcsbKeys.key(i).getBytes(StandardCharsets.UTF_8);
            int region = 0;
            while (region < splits.length && Arrays.compareUnsigned(key, splits[region]) >= 0) {
                region++;
            }
            perRegion[region]++;
        }
        for (int n : perRegion) {
            assertTrue(Math.abs(n - rows / regions) <= 2, Arrays.toString(perRegion));
        }
    }
}
