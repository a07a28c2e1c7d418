package org.heaplab.bench;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Request;
import org.heaplab.rpc.server.RpcServer;
import org.heaplab.rpc.server.RpcServers;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.tools.PeData;

/**
 * The physical ceiling on this machine: how many get-sized round trips per second loopback
 * TCP carries with N client threads, and how many an RPC server carries when its service does nothing.
 * Not a JMH benchmark and not a test: a main class, documented in engine/docs/benchmarks.md.
 *
 * <pre>
 *   raw       N threads x (own socket) ──100 B frame──▶ PlainEchoServer (thread per connection) ──1 KB──▶
 *   &lt;impl&gt;    N threads x RpcConnection ──GET frame──▶ RpcServer (each of RpcServers.implementations())
 *                                                       └─ EchoService: the same 1 KB answer, no storage
 * </pre>
 * Both paths move exactly the same bytes per call (the raw request and answer ARE the RPC frames), so
 * the difference is what the RPC server costs: decoding, the call queue, the handler hop, encoding. The
 * engine's get rate from the block cache divided by these figures is the fraction of the ceiling it reaches.
 *
 * <p>Clients and servers share this JVM and its cores (on a 2-core machine both halves compete for them,
 * as they do in the labs' local runs). Each (target, threads) pair: a warm-up, then a measured window;
 * calls/s = calls completed in the window / its length; latency = per call, client side.
 */
public final class EchoCeiling {
    private EchoCeiling() {
    }

    /** What to run; {@link #parse} builds it from the command line. */
    record Options(List<String> targets, int[] threads, double seconds, double warmup, int requestBytes,
                   int responseBytes, boolean shared, Configuration conf, Path out) {
    }

    /** One measured point. */
    record Result(String target, int threads, long calls, double seconds, double callsPerSecond, double meanMicros,
                  double p50Micros, double p99Micros, double maxMicros) {
        String json() {
            return String.format(Locale.ROOT, "{\"target\": \"%s\", \"threads\": %d, \"calls\": %d, \"seconds\": %.3f, "
                    + "\"calls_per_s\": %.1f, \"mean_us\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f}",
                target, threads, calls, seconds, callsPerSecond, meanMicros, p50Micros, p99Micros, maxMicros);
        }
    }

    static final String USAGE = "usage: EchoCeiling [--threads 1,8,32,128] [--seconds 10] [--warmup 3] "
        + "[--targets raw," + String.join(",", RpcServers.implementations()) + "] [--request-bytes 100] "
        + "[--response-bytes 1024] [--shared] [--conf key=value]... [--out results.jsonl]";

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("ERROR: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        System.out.println("# echo ceiling: " + Runtime.getRuntime().availableProcessors() + " cores, Java "
            + System.getProperty("java.version") + ", request " + o.requestBytes() + " B, answer " + o.responseBytes()
            + " B, " + o.warmup() + " s warm-up + " + o.seconds() + " s per point, "
            + (o.shared() ? "one shared RpcConnection" : "one connection per thread"));
        System.out.println(String.format(Locale.ROOT, "%-18s %7s %12s %10s %10s %10s %10s",
            "target", "threads", "calls/s", "mean_us", "p50_us", "p99_us", "max_us"));
        for (Result r : run(o, System.out)) {
            if (o.out() != null) {
                Files.writeString(o.out(), r.json() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            }
        }
    }

    static Options parse(String[] args) {
        List<String> targets = new ArrayList<>();
        targets.add("raw");
        targets.addAll(RpcServers.implementations());
        int[] threads = {1, 8, 32, 128};
        double seconds = 10;
        double warmup = 3;
        int request = 100;
        int response = 1024;
        boolean shared = false;
        Configuration conf = new Configuration();
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--shared")) {
                shared = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a.startsWith("--") ? a + " needs a value" : "unknown argument " + a);
            }
            String v = args[++i];
            try {
                switch (a) {
                    case "--threads" -> threads = Arrays.stream(v.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                    case "--seconds" -> seconds = Double.parseDouble(v);
                    case "--warmup" -> warmup = Double.parseDouble(v);
                    case "--targets" -> targets = List.of(v.split(","));
                    case "--request-bytes" -> request = Integer.parseInt(v);
                    case "--response-bytes" -> response = Integer.parseInt(v);
                    case "--conf" -> {
                        int eq = v.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--conf takes key=value, got " + v);
                        }
                        conf.set(v.substring(0, eq), v.substring(eq + 1));
                    }
                    case "--out" -> out = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(a + " takes a number, got " + v);
            }
        }
        for (String t : targets) {
            if (!t.equals("raw") && !RpcServers.implementations().contains(t)) {
                throw new IllegalArgumentException("--targets: " + t + " is not raw or one of " + RpcServers.implementations());
            }
        }
        if (Arrays.stream(threads).anyMatch(t -> t < 1) || threads.length == 0) {
            throw new IllegalArgumentException("--threads must be positive counts, got " + Arrays.toString(threads));
        }
        if (!(seconds > 0) || !(warmup >= 0)) {
            throw new IllegalArgumentException("--seconds must be > 0 and --warmup >= 0");
        }
        if (request < Frames.MIN_REQUEST || response < Frames.MIN_RESPONSE) {
            throw new IllegalArgumentException("--request-bytes must be at least " + Frames.MIN_REQUEST
                + " and --response-bytes at least " + Frames.MIN_RESPONSE);
        }
        return new Options(targets, threads, seconds, warmup, request, response, shared, conf, out);
    }

    /** Runs every (target, threads) point, printing each line as it is measured. */
    static List<Result> run(Options o, PrintStream print) throws Exception {
        Frames frames = new Frames(o.requestBytes(), o.responseBytes());
        List<Result> results = new ArrayList<>();
        for (String target : o.targets()) {
            for (int n : o.threads()) {
                Result r = target.equals("raw") ? raw(frames, n, o) : rpc(target, frames, n, o);
                results.add(r);
                print.println(String.format(Locale.ROOT, "%-18s %7d %12.0f %10.1f %10.1f %10.1f %10.1f", r.target(),
                    r.threads(), r.callsPerSecond(), r.meanMicros(), r.p50Micros(), r.p99Micros(), r.maxMicros()));
            }
        }
        return results;
    }

    /** N threads, each its own socket to a {@link PlainEchoServer}: write the request frame, read the answer. */
    private static Result raw(Frames frames, int threads, Options o) throws Exception {
        try (PlainEchoServer server = new PlainEchoServer(frames.answer)) {
            List<Socket> sockets = new ArrayList<>();
            try {
                List<Call> calls = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                    s.setTcpNoDelay(true);
                    sockets.add(s);
                    OutputStream out = s.getOutputStream();
                    DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 16 * 1024));
                    byte[] answer = new byte[frames.answer.length];
                    calls.add(() -> {
                        out.write(frames.request);
                        int length = in.readInt();
                        if (length != answer.length - 4) {
                            throw new IOException("answer of " + length + " bytes, expected " + (answer.length - 4));
                        }
                        in.readFully(answer, 0, length);
                    });
                }
                return measure("raw", calls, o);
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }

    /** N threads calling GET through RpcConnections to the {@code impl} server running {@link EchoService}. */
    private static Result rpc(String impl, Frames frames, int threads, Options o) throws Exception {
        Configuration conf = o.conf();
        RpcServer server = RpcServers.create(impl, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            new EchoService(frames.cell), conf, line -> System.err.println("  [" + impl + "] " + line));
        server.start();
        List<RpcConnection> connections = new ArrayList<>();
        try {
            String host = InetAddress.getLoopbackAddress().getHostAddress();
            List<Call> calls = new ArrayList<>();
            RpcConnection shared = o.shared() ? RpcConnection.open(host, server.port(), 5000, 60_000) : null;
            if (shared != null) {
                connections.add(shared);
            }
            for (int i = 0; i < threads; i++) {
                RpcConnection c = shared != null ? shared : RpcConnection.open(host, server.port(), 5000, 60_000);
                if (shared == null) {
                    connections.add(c);
                }
                calls.add(() -> {
                    if (c.call(Method.GET, frames.params, List.of()).cells().size() != 1) {
                        throw new IOException("the echo answer lost its cell");
                    }
                });
            }
            return measure(impl + (o.shared() ? "/shared" : ""), calls, o);
        } finally {
            connections.forEach(RpcConnection::close);
            server.stop();
        }
    }

    /** One client thread's round trip. */
    @FunctionalInterface
    interface Call {
        void run() throws IOException;
    }

    /** Runs every call in its own thread: warm-up, then the measured window; merges the per-thread histograms. */
    private static Result measure(String target, List<Call> calls, Options o) throws InterruptedException, IOException {
        for (Call c : calls) {
            c.run(); // one untimed call per client first: connections set up, classes loaded
        }
        long start = System.nanoTime() + 20_000_000L; // every thread running by then
        long from = start + (long) (o.warmup() * 1e9);
        long to = from + (long) (o.seconds() * 1e9);
        List<Histogram> histograms = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            Histogram h = new Histogram(3_600_000_000_000L, 3);
            histograms.add(h);
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < start) {
                        Thread.onSpinWait();
                    }
                    while (failure.get() == null) {
                        long t0 = System.nanoTime();
                        call.run();
                        long t1 = System.nanoTime();
                        if (t0 >= from && t1 <= to) {
                            h.recordValue(t1 - t0);
                        }
                        if (t1 >= to) {
                            break;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, "echo-client-" + i);
            t.setDaemon(true);
            t.start();
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException(target + " failed: " + failure.get(), failure.get());
        }
        Histogram all = new Histogram(3_600_000_000_000L, 3);
        histograms.forEach(all::add);
        double seconds = (to - from) / 1e9;
        long n = all.getTotalCount();
        return new Result(target, calls.size(), n, seconds, n / seconds, all.getMean() / 1e3,
            all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(99) / 1e3, all.getMaxValue() / 1e3);
    }

    /**
     * The GET request frame and its OK answer frame, padded to the sizes asked for; the raw path sends these
     * very bytes.
     */
    static final class Frames {
        /** Frame header, table "t", the PE row, n = 0: the smallest GET. */
        static final int MIN_REQUEST = 64;
        /** One cell with an empty value. */
        static final int MIN_RESPONSE = 69;

        final byte[] params;
        final byte[] request;
        final KeyValue cell;
        final byte[] answer;

        Frames(int requestBytes, int responseBytes) {
            byte[] row = PeData.rowKey(42);
            byte[] bare = FrameWriter.request(0, Method.GET, params("", row), List.of());
            String table = "t".repeat(Math.max(1, requestBytes - bare.length));
            this.params = params(table, row);
            this.request = FrameWriter.request(0, Method.GET, params, List.of());
            KeyValue empty = KeyValue.create(row, PeData.FAMILY, PeData.QUALIFIER, 1L, KeyValue.Type.PUT, new byte[0]);
            int valueBytes = Math.max(0, responseBytes - FrameWriter.ok(0, new byte[0], List.of(empty)).length);
            byte[] value = new byte[valueBytes];
            Arrays.fill(value, (byte) 'v');
            this.cell = KeyValue.create(row, PeData.FAMILY, PeData.QUALIFIER, 1L, KeyValue.Type.PUT, value);
            this.answer = FrameWriter.ok(0, new byte[0], List.of(cell));
        }

        private static byte[] params(String table, byte[] row) {
            return new ParamWriter().writeString(table).writeBytes(row).writeInt(0).toByteArray();
        }
    }

    /** The RPC echo: every call is answered with the same one-cell get answer; nothing is stored or read. */
    static final class EchoService implements RpcService {
        private final RpcService.Reply reply;

        EchoService(KeyValue cell) {
            this.reply = new RpcService.Reply(new byte[0], List.of(cell));
        }

        @Override
        public Reply call(Request request) {
            return reply;
        }
    }
}
