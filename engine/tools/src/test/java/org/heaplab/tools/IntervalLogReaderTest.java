package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Interval logs written as YCSB and pe write them, read back whatever range their values have. */
class IntervalLogReaderTest {
    private static final long T0 = 1_795_921_115_628L;
    private static final long PAUSE_US = 30_000_000L; // a 30 s stall

    @TempDir
    Path dir;

    /** Writes {@code intervals} as HistogramLogWriter writes them for YCSB and pe (BaseTime, relative stamps). */
    private Path log(List<Histogram> intervals) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            HistogramLogWriter writer = new HistogramLogWriter(out);
            writer.outputLogFormatVersion();
            writer.outputStartTime(T0);
            writer.setBaseTime(T0);
            writer.outputLegend();
            for (Histogram h : intervals) {
                writer.outputIntervalHistogram(h);
            }
        }
        Path file = dir.resolve("x.hlog");
        Files.write(file, bytes.toByteArray());
        return file;
    }

    /** Two intervals from one recycling Recorder, as YCSB's: small values, then the same plus one 30 s pause. */
    private static List<Histogram> smallThenPause(Recorder recorder) {
        List<Histogram> written = new ArrayList<>();
        Histogram recycled = null;
        for (int k = 0; k < 2; k++) {
            for (long v = 100; v < 1099; v++) {
                recorder.recordValue(v);
            }
            recorder.recordValue(k == 0 ? 1099 : PAUSE_US);
            recycled = recorder.getIntervalHistogram(recycled);
            recycled.setStartTimeStamp(T0 + 1000L * k);
            recycled.setEndTimeStamp(T0 + 1000L * (k + 1));
            written.add(recycled.copy());
        }
        return written;
    }

    @Test
    void aPauseFarAboveTheFirstIntervalsRangeIsTheMaxOfItsInterval() throws Exception {
        for (Recorder recorder : List.of(new Recorder(3), new Recorder(IntervalLog.HIGHEST_TRACKABLE_US, 3))) { // YCSB's, pe's
            List<Histogram> written = smallThenPause(recorder);
            List<Histogram> read = IntervalLogReader.read(log(written));
            assertEquals(2, read.size());
            for (int k = 0; k < 2; k++) {
                assertEquals(written.get(k), read.get(k), "interval " + k + ": the same counts");
                assertEquals(T0 + 1000L * k, read.get(k).getStartTimeStamp(), 1.0);
                assertEquals(T0 + 1000L * (k + 1), read.get(k).getEndTimeStamp(), 1.0);
            }
            Histogram first = read.get(0);
            Histogram paused = read.get(1);
            assertTrue(first.valuesAreEquivalent(1099, first.getMaxValue()), "first max " + first.getMaxValue());
            assertTrue(paused.valuesAreEquivalent(PAUSE_US, paused.getMaxValue()), "the pause is the max: " + paused.getMaxValue());
            assertEquals(1000, paused.getTotalCount());
            // 999 values 100..1098 and the pause: the median and p99.9 are small values, only the top is the pause
            assertTrue(paused.valuesAreEquivalent(599, paused.getValueAtPercentile(50)), "p50 " + paused.getValueAtPercentile(50));
            assertTrue(paused.valuesAreEquivalent(1098, paused.getValueAtPercentile(99.9)), "p99.9 " + paused.getValueAtPercentile(99.9));
            assertTrue(paused.valuesAreEquivalent(PAUSE_US, paused.getValueAtPercentile(99.95)));
        }
    }

    /**
     * The defect of YCSB's log in lab 02 (g1-tuned load): an interval whose header announces a smaller range
     * than its counts, made here by rewriting the header of an encoded interval (YCSB's Recorder threads do
     * it by racing a resize). HdrHistogram's own reader fails on it; this one reads the counts as they were.
     */
    @Test
    void anIntervalWhoseHeaderUnderstatesItsRangeIsReadWhole() throws Exception {
        Histogram h = new Histogram(3);
        for (long v = 300; v < 30_000; v += 7) {
            h.recordValue(v);
        }
        h.recordValue(34_208); // the fixture's value at index 6189, past the 6144 counts of a 32767 header
        Path file = dir.resolve("understated.hdr");
        Files.writeString(file, "#[StartTime: 1795921115.628 (seconds since epoch), x]\n"
            + "0.050,1.000,0.034," + understated(h, 32_767) + "\n");

        try (HistogramLogReader theirs = new HistogramLogReader(file.toFile())) {
            assertThrows(ArrayIndexOutOfBoundsException.class, theirs::nextIntervalHistogram);
        }
        List<Histogram> read = IntervalLogReader.read(file);
        assertEquals(1, read.size());
        assertEquals(h, read.get(0));
        assertEquals(h.getMaxValue(), read.get(0).getMaxValue());
        assertEquals(T0 + 50, read.get(0).getStartTimeStamp(), 1.0);
        assertNull(read.get(0).getTag());
    }

    @Test
    void aCutLineIsAnErrorNamingTheFileAndLine() throws Exception {
        Histogram h = new Histogram(3);
        h.recordValue(500);
        Path file = log(List.of(h, h));
        String text = Files.readString(file);
        Files.writeString(file, text.substring(0, text.length() - 12)); // the writer was killed mid-line
        IOException e = assertThrows(IOException.class, () -> IntervalLogReader.read(file));
        assertTrue(e.getMessage().startsWith(file + ":" + text.lines().count() + ": not an interval"), e.getMessage());
        assertEquals(List.of(), IntervalLogReader.read(dir.resolve("none.hlog")));
    }

    /** {@code h} compressed and base64-encoded as HistogramLogWriter writes it, its header's highest value replaced. */
    private static String understated(Histogram h, long announced) throws Exception {
        ByteBuffer compressed = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(compressed);
        Inflater inflater = new Inflater();
        inflater.setInput(compressed.array(), 8, length - 8); // after the compressed cookie and length
        byte[] plain = new byte[h.getNeededByteBufferCapacity()];
        int plainLength = inflater.inflate(plain);
        inflater.end();
        ByteBuffer.wrap(plain).putLong(24, announced); // cookie, length, offset, digits (4 each), lowest (8), highest
        Deflater deflater = new Deflater();
        deflater.setInput(plain, 0, plainLength);
        deflater.finish();
        byte[] deflated = new byte[plain.length + 64];
        int deflatedLength = deflater.deflate(deflated);
        deflater.end();
        ByteBuffer out = ByteBuffer.allocate(8 + deflatedLength);
        out.putInt(compressed.getInt(0)).putInt(deflatedLength).put(deflated, 0, deflatedLength);
        return Base64.getEncoder().encodeToString(out.array());
    }
}
