package org.heaplab.server;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.heaplab.core.cache.CacheKeys;
import org.heaplab.core.cache.ReadPaths;
import org.heaplab.core.conf.ClientKeys;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.EngineEnv;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.region.RegionKeys;
import org.heaplab.core.storefile.StoreFileKeys;
import org.heaplab.core.wal.Mvcc;
import org.heaplab.core.wal.WalTuning;
import org.heaplab.rpc.netty.NettyEventLoops;
import org.heaplab.rpc.netty.NettyRpcServer;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcScheduler;
import org.heaplab.rpc.server.RpcServers;
import org.heaplab.rpc.simple.SimpleRpcServer;

/**
 * The engine-site.xml keys the engine knows: the key constants of the classes that read the configuration
 * (collected by reflection, so a new constant is known without a second list to keep), and the HBase keys
 * the engine accepts and deliberately ignores. {@link #unknown} names the {@code hbase.*} and
 * {@code heaplab.*} keys of a configuration that are neither: the servers warn about them at start-up, since
 * a mistyped switch key otherwise runs the default without a word. KnownKeysTest checks that no key literal
 * of the engine's sources lives outside {@link #HOLDERS}.
 */
public final class KnownKeys {
    /** The keys checked: HBase's and the lab's own (hfile.*, io.* and others pass unchecked). */
    static final List<String> CHECKED_PREFIXES = List.of("hbase.", "heaplab.");

    /** HBase keys the engine accepts and ignores, and why: the profiles set them for the record. */
    static final Map<String, String> IGNORED = Map.of(
        "hbase.ipc.server.reservoir.enabled",
        "HBase 2.0-2.2's name of the request buffer pool; the engine reads hbase.server.allocator.pool.enabled");

    /** The classes whose String constants name the configuration keys the engine reads. */
    static final List<Class<?>> HOLDERS = List.of(
        EngineEnv.class, StorageKeys.class, CacheKeys.class, ReadPaths.class, StoreFileKeys.class, RegionKeys.class,
        WalTuning.class, Mvcc.class,
        RpcConstants.class, RpcServers.class, RpcScheduler.class, SimpleRpcServer.class, NettyRpcServer.class,
        NettyEventLoops.class,
        ClientKeys.class,
        RegionServer.class, ClusterKeys.class, InfoServer.class, WritePath.class, StagedWritePath.class);

    /** What a key looks like: dotted lower-case words (a constant like "offheap" or "NONE" is a value). */
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9]*(\\.[a-zA-Z0-9_-]+)+");

    private static final Set<String> KNOWN = collect();

    private KnownKeys() {
    }

    /** Every key the engine knows, sorted. */
    public static Set<String> all() {
        return KNOWN;
    }

    /** The hbase.* and heaplab.* keys of {@code conf} the engine does not know, sorted. */
    public static List<String> unknown(Configuration conf) {
        return conf.asMap().keySet().stream()
            .filter(k -> CHECKED_PREFIXES.stream().anyMatch(k::startsWith))
            .filter(k -> !KNOWN.contains(k))
            .toList();
    }

    private static Set<String> collect() {
        Set<String> keys = new TreeSet<>(IGNORED.keySet());
        for (Class<?> holder : HOLDERS) {
            for (Field f : holder.getDeclaredFields()) {
                int m = f.getModifiers();
                // a *PROPERTY constant names a JVM system property (-D...), which engine-site.xml cannot set
                if (!Modifier.isStatic(m) || !Modifier.isFinal(m) || f.getType() != String.class
                    || f.getName().endsWith("PROPERTY")) {
                    continue;
                }
                try {
                    f.setAccessible(true);
                    String value = (String) f.get(null);
                    if (value != null && KEY.matcher(value).matches()) {
                        keys.add(value);
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read " + holder.getName() + "." + f.getName(), e);
                }
            }
        }
        return Set.copyOf(keys);
    }
}
