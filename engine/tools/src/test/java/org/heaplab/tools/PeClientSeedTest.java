package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A student's seed (heaplab run --student) makes each PE client's rows that student's own. */
class PeClientSeedTest {
    @AfterEach
    void unseed() {
        System.clearProperty(PeClient.SEED_PROPERTY);
    }

    private static int[] rows(Random random) {
        int[] rows = new int[32];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = PeData.randomRow(random, 1_000_000);
        }
        return rows;
    }

    @Test
    void aSeededClientDrawsTheSameRowsEveryTime() {
        System.setProperty(PeClient.SEED_PROPERTY, "4242");
        assertArrayEquals(rows(PeClient.workloadRandom(3)), rows(PeClient.workloadRandom(3)));
    }

    @Test
    void clientsAndStudentsDrawDifferentRows() {
        System.setProperty(PeClient.SEED_PROPERTY, "4242");
        int[] student = rows(PeClient.workloadRandom(0));
        assertFalse(Arrays.equals(student, rows(PeClient.workloadRandom(1))), "client 1 repeats client 0");
        System.setProperty(PeClient.SEED_PROPERTY, "4243");
        assertFalse(Arrays.equals(student, rows(PeClient.workloadRandom(0))), "another seed, same rows");
    }

    @Test
    void withoutASeedTheClientsDrawAsHBasePeDoes() {
        assertFalse(Arrays.equals(rows(PeClient.workloadRandom(0)), rows(PeClient.workloadRandom(0))));
    }
}
