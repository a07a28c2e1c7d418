package org.heaplab.rpc.server;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.netty.NettyRpcServer;
import org.heaplab.rpc.simple.SimpleRpcServer;

/**
 * Chooses the {@link RpcServer} implementation once at start-up from hbase.rpc.server.impl, and hands it
 * the {@link RpcMemory} made once from the same configuration.
 */
public final class RpcServers {
    public static final String IMPL_KEY = "hbase.rpc.server.impl";
    /** HBase's package: its fully qualified names are accepted too. */
    private static final String HBASE_PACKAGE = "org.apache.hadoop.hbase.ipc.";

    /**
     * How each implementation is built; every implementation has this constructor. {@code conf} holds the
     * transport's own keys and the scheduler's; the memory comes made.
     */
    @FunctionalInterface
    public interface Factory {
        RpcServer create(InetSocketAddress bind, RpcService service, Configuration conf, RpcMemory memory,
                         Consumer<String> log);
    }

    /** Name -> constructor, in the order tests iterate them. */
    private static final Map<String, Factory> IMPLS = new LinkedHashMap<>();

    static {
        IMPLS.put("SimpleRpcServer", SimpleRpcServer::new);
        IMPLS.put("NettyRpcServer", NettyRpcServer::new);
    }

    /** Names of earlier issues, still accepted (results of earlier runs replay their engine-site.xml). */
    private static final Map<String, String> RENAMED = Map.of("BlockingRpcServer", "SimpleRpcServer");

    private RpcServers() {
    }

    /** The names hbase.rpc.server.impl accepts (short form); fuzz and behaviour tests run on each. */
    public static List<String> implementations() {
        return List.copyOf(IMPLS.keySet());
    }

    /** HBase 2's default, NettyRpcServer, when it is built in; else the first implementation. */
    public static String defaultImplementation() {
        return IMPLS.containsKey("NettyRpcServer") ? "NettyRpcServer" : IMPLS.keySet().iterator().next();
    }

    /**
     * A new, not yet started server of the implementation hbase.rpc.server.impl names (short or HBase's
     * fully qualified name; BlockingRpcServer, an older name for the 1.x server, means SimpleRpcServer),
     * with the memory {@link RpcMemory#fromConf} makes of {@code conf}.
     *
     * @throws ConfigurationException one line naming the key and the value that is not valid: an unknown
     *     name (with the valid ones), a memory key or a key of the transport
     */
    public static RpcServer fromConf(InetSocketAddress bind, RpcService service, Configuration conf, Consumer<String> log) {
        String impl = conf.get(IMPL_KEY, defaultImplementation());
        Factory factory = factory(impl);
        String renamed = RENAMED.get(impl.trim());
        if (renamed != null) {
            log.accept(IMPL_KEY + "=" + impl.trim() + " is the old name of " + renamed + "; using " + renamed);
        }
        return factory.create(bind, service, conf, RpcMemory.fromConf(conf, log), log);
    }

    /** As {@link #fromConf} for a given implementation name (tests iterate {@link #implementations()}). */
    public static RpcServer create(String impl, InetSocketAddress bind, RpcService service, Configuration conf,
                                   Consumer<String> log) {
        Factory factory = factory(impl);
        return factory.create(bind, service, conf, RpcMemory.fromConf(conf, log), log);
    }

    private static Factory factory(String impl) {
        String name = impl.trim();
        if (name.startsWith(HBASE_PACKAGE)) {
            name = name.substring(HBASE_PACKAGE.length());
        }
        Factory f = IMPLS.get(RENAMED.getOrDefault(name, name));
        if (f == null) {
            throw new ConfigurationException(IMPL_KEY + " must be one of " + String.join(", ", IMPLS.keySet())
                + " (or org.apache.hadoop.hbase.ipc.<name>), got " + impl);
        }
        return f;
    }
}
