package org.heaplab.core.storefile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.junit.jupiter.api.Test;

class StoreFileTuningTest {
    @Test
    void defaultsAreHBases() {
        StoreFileTuning t = StoreFileTuning.fromConf(new Configuration());
        assertEquals(StoreFileTuning.DEFAULT, t);
        assertEquals(65536, t.dataBlockSize());
        assertEquals(131072, t.indexBlockMaxBytes());
        assertEquals(0.01, t.bloomErrorRate(), 1e-9);
        assertEquals(131072, t.bloomChunkBytes());
    }

    @Test
    void keysOverrideTheDefaults() {
        Configuration c = new Configuration().set(StoreFileKeys.INDEX_BLOCK_MAX_SIZE, "4096")
            .set(StoreFileKeys.BLOOM_ERROR_RATE, "0.05").set(StoreFileKeys.BLOOM_BLOCK_SIZE, "1024");
        StoreFileTuning t = StoreFileTuning.fromConf(c);
        assertEquals(4096, t.indexBlockMaxBytes());
        assertEquals(0.05, t.bloomErrorRate(), 1e-6);
        assertEquals(1024, t.bloomChunkBytes());
    }

    @Test
    void badValuesAreOneLineErrorsNamingTheKey() {
        String[][] bad = {{StoreFileKeys.INDEX_BLOCK_MAX_SIZE, "10"}, {StoreFileKeys.BLOOM_ERROR_RATE, "1.5"},
            {StoreFileKeys.BLOOM_ERROR_RATE, "0"}, {StoreFileKeys.BLOOM_ERROR_RATE, "abc"},
            {StoreFileKeys.BLOOM_BLOCK_SIZE, "2"},
            {StoreFileKeys.BLOOM_BLOCK_SIZE, "lots"}};
        for (String[] kv : bad) {
            ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> StoreFileTuning.fromConf(new Configuration().set(kv[0], kv[1])));
            assertTrue(e.getMessage().contains(kv[0]), e.getMessage());
            assertFalse(e.getMessage().contains("\n"));
        }
    }
}
