package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The stdout format of hbase-internals.md section 8 (HBase 2.x PE), line by line. */
class PeSummaryTest {
    private static Histogram hist(long... values) {
        Histogram h = new Histogram(IntervalLog.HIGHEST_TRACKABLE_US, 3);
        for (long v : values) {
            h.recordValue(v);
        }
        return h;
    }

    @Test
    void clientBlockMatchesHBase2Layout() {
        PeSummary.ClientResult r = new PeSummary.ClientResult("TestClient-0", 2000, 0, 4, hist(10, 20, 30, 40));
        String block = PeSummary.clientBlock("RandomReadTest", PerformanceEvaluation.testClassName("RandomReadTest"), r, 1000);
        String expected = String.join("\n",
            "Test : RandomReadTest, Thread : TestClient-0",
            "Latency (us) : mean=25.00, min=10.00, max=40.00, stdDev=11.18, 50th=20.00, 75th=30.00, 95th=40.00, 99th=40.00,"
                + " 99.9th=40.00, 99.99th=40.00, 99.999th=40.00",
            "Num measures (latency) : 4",
            "Mean      = 25.00",
            "Min       = 10.00",
            "Max       = 40.00",
            "StdDev    = 11.18",
            "50th      = 20.00",
            "75th      = 30.00",
            "95th      = 40.00",
            "99th      = 40.00",
            "99.9th    = 40.00",
            "99.99th   = 40.00",
            "99.999th  = 40.00",
            "Finished class org.heaplab.tools.PerformanceEvaluation$RandomReadTest in 2000ms at offset 0 for 4 rows (0.00 MB/s)",
            "Finished TestClient-0 in 2000ms over 4 rows") + "\n";
        assertEquals(expected, block);
    }

    @Test
    void summaryMatchesHBase2Layout() {
        List<PeSummary.ClientResult> results = List.of(
            new PeSummary.ClientResult("TestClient-0", 2000, 0, 1000, hist(100, 300)),
            new PeSummary.ClientResult("TestClient-1", 1000, 1000, 1000, hist(50, 50)));
        assertEquals("[RandomWriteTest] Summary of timings (ms): [2000, 1000]\n"
            + "[RandomWriteTest duration ]\tMin: 1000ms\tMax: 2000ms\tAvg: 1500ms\n"
            + "[ Avg latency (us)]\t125\n"
            + "[ Avg TPS/QPS]\t1500\t row per second\n", PeSummary.summary("RandomWriteTest", results, 1000));
    }

    @Test
    void throughputInMegabytesPerSecond() {
        // 1048576 rows of 26 + 1000 + 5 + 1 bytes in one second
        assertEquals("1032.00 MB/s", PeSummary.mbps(1_048_576, 1000, 1000));
        assertEquals("0.00 MB/s", PeSummary.mbps(10, 0, 1000));
    }
}
