package org.heaplab.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Reads an HdrHistogram interval log (pe's PREFIX.hlog, YCSB's PREFIX.ycsb-OP.hdr, the YCSB report's
 * PREFIX.hlog) as HdrHistogram's HistogramLogReader does: the same StartTime / BaseTime rules, absolute
 * epoch-ms start and end stamps, tags; but each interval is decoded whatever range its values have.
 *
 * <p>Why: YCSB's interval histograms come from an auto-resizing Recorder, and when its threads race a
 * resize the histogram's header can announce a smaller range than the counts it holds (lab 02's g1-tuned
 * load: a header of 32 ms over inserts up to 48 ms). HistogramLogReader sizes each histogram from that
 * header and throws ArrayIndexOutOfBoundsException; here the counts are decoded into a histogram wide
 * enough for any value and then kept in one sized to the interval's own largest value.
 */
public final class IntervalLogReader {
    /** The decode's bar: the widest histogram HdrHistogram makes holds any value (54k counts, 434 KB, briefly). */
    static final long WIDEST = Long.MAX_VALUE / 2;
    private static final double YEAR_SEC = 365 * 24 * 3600.0;

    private IntervalLogReader() {
    }

    /**
     * Every interval histogram of {@code file} in file order; none when the file does not exist.
     *
     * @throws IOException naming the file and line when a line does not parse (a log cut by a killed writer)
     */
    public static List<Histogram> read(Path file) throws IOException {
        List<Histogram> out = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return out;
        }
        double startSec = 0;
        double baseSec = 0;
        boolean sawStart = false;
        boolean sawBase = false;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            for (int number = 1; (line = in.readLine()) != null; number++) {
                try {
                    if (line.startsWith("#[StartTime:")) {
                        startSec = firstNumber(line, "#[StartTime:");
                        sawStart = true;
                    } else if (line.startsWith("#[BaseTime:")) {
                        baseSec = firstNumber(line, "#[BaseTime:");
                        sawBase = true;
                    } else if (!line.isBlank() && !line.startsWith("#") && !line.startsWith("\"StartTimestamp\"")) {
                        String tag = line.startsWith("Tag=") ? line.substring(4, Math.max(4, line.indexOf(','))) : null;
                        String[] f = line.substring(tag == null ? 0 : line.indexOf(',') + 1).split(",", 4);
                        if (f.length < 4) {
                            throw new IllegalArgumentException("not start,length,max,payload");
                        }
                        double stampSec = Double.parseDouble(f[0]); // then length, max (not needed), payload
                        if (!sawStart) { // no StartTime line: the first stamp is the start
                            startSec = stampSec;
                            sawStart = true;
                        }
                        if (!sawBase) { // no BaseTime line: stamps more than a year before the start are relative
                            baseSec = stampSec < startSec - YEAR_SEC ? startSec : 0.0;
                            sawBase = true;
                        }
                        double absoluteStartSec = stampSec + baseSec;
                        Histogram h = decode(f[3].trim());
                        h.setStartTimeStamp((long) (absoluteStartSec * 1000.0));
                        h.setEndTimeStamp((long) ((absoluteStartSec + Double.parseDouble(f[1])) * 1000.0));
                        h.setTag(tag);
                        out.add(h);
                    }
                } catch (IllegalArgumentException | DataFormatException e) { // a number, the base64 or zlib
                    throw new IOException(file + ":" + number + ": not an interval: " + e.getMessage(), e);
                }
            }
        }
        return out;
    }

    /** One interval's base64 payload, in a histogram sized to its largest value. */
    public static Histogram decode(String base64) throws DataFormatException {
        Histogram wide = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), WIDEST);
        long lowest = wide.getLowestDiscernibleValue();
        Histogram fit = new Histogram(lowest, Math.max(wide.getMaxValue(), 2 * lowest), wide.getNumberOfSignificantValueDigits());
        fit.add(wide);
        return fit;
    }

    private static double firstNumber(String line, String label) {
        return Double.parseDouble(line.substring(label.length()).trim().split("[ ,]", 2)[0]);
    }
}
