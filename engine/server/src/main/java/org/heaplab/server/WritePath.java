package org.heaplab.server;

import java.util.List;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.region.OnlineRegions;
import org.heaplab.core.region.Put;
import org.heaplab.core.wal.Durability;
import org.heaplab.rpc.server.ServerCall;

/**
 * How a PUT call goes through the server, chosen once at start-up by heaplab.regionserver.write.path:
 * {@link LegacyWritePath} ({@code legacy}: the handler does the whole put and waits for the WAL sync)
 * or {@link StagedWritePath} ({@code staged}, the Alibaba slides: the handler only appends; a sync stage and a
 * post-sync stage finish the put and answer from there).
 *
 * <p>Contract: {@link #put} answers {@code call} exactly once (now or later, from any thread), and
 * keeps the request buffer (the cells may be views over it) until the WAL no longer reads the cells.
 *
 * <p>Thread safety: {@link #put} is called by every handler thread at once.
 */
public interface WritePath extends AutoCloseable {
    String KEY = "heaplab.regionserver.write.path";
    String DEFAULT = "legacy";

    /** Writes {@code puts} (decoded: {@link org.heaplab.core.region.PutDecoder}) of {@code table} with {@code durability} and answers {@code call}. */
    void put(String table, List<Put> puts, Durability durability, ServerCall call);

    /** One line for the start-up log. */
    String describe();

    /** Stops the stage threads after finishing what they hold (the RPC server stopped first). */
    @Override
    void close();

    /**
     * The configured path's name; fails naming the key and the valid values for anything else (called
     * before the server touches its data, so a typo fails start-up at once).
     */
    static String checkConf(Configuration conf) {
        String v = conf.get(KEY, DEFAULT).trim();
        if (!v.equals("legacy") && !v.equals("staged")) {
            throw new ConfigurationException(KEY + " must be legacy or staged, got '" + v + "'");
        }
        return v;
    }

    /**
     * The path {@code conf} selects over {@code regions}.
     *
     * @throws ConfigurationException naming the key and the valid values for anything else
     */
    static WritePath fromConf(Configuration conf, OnlineRegions regions, int handlers) {
        String v = checkConf(conf);
        return switch (v) {
            case "legacy" -> new LegacyWritePath(regions);
            case "staged" -> StagedWritePath.fromConf(conf, regions, handlers);
            default -> throw new ConfigurationException(KEY + " must be legacy or staged, got '" + v + "'");
        };
    }
}
