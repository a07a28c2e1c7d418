package org.heaplab.rpc.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.NettyRuntime;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;

/**
 * The event-loop group and server channel type, chosen once at start-up (HBase's NettyEventLoopGroupConfig):
 * epoll (Netty's native transport: edge-triggered epoll, fewer syscalls and copies than the JDK's
 * selector) when hbase.netty.nativetransport is true and the native library loads on this machine,
 * else the JDK's NIO selector. hbase.netty.worker.count event loops (0: Netty's default, 2 x cores);
 * one group accepts and serves connections, as in HBase.
 *
 * <p>Public for its key constants only (the server's KnownKeys reads them); the rest is this package's.
 *
 * @param description for the start-up line: which transport and why, how many event loops
 */
public record NettyEventLoops(boolean epoll, int threads, String description) {
    public static final String WORKER_COUNT_KEY = "hbase.netty.worker.count";
    public static final int DEFAULT_WORKER_COUNT = 0;
    public static final String NATIVE_TRANSPORT_KEY = "hbase.netty.nativetransport";
    public static final boolean DEFAULT_NATIVE_TRANSPORT = true;

    /**
     * Decides the transport and the number of event loops (nothing is started yet).
     *
     * @throws ConfigurationException when hbase.netty.worker.count is negative
     */
    static NettyEventLoops fromConf(Configuration conf) {
        int workers = conf.getInt(WORKER_COUNT_KEY, DEFAULT_WORKER_COUNT);
        if (workers < 0) {
            throw new ConfigurationException(WORKER_COUNT_KEY + " must be 0 (Netty's default, 2 x cores) or more, got " + workers);
        }
        int threads = workers == 0 ? 2 * NettyRuntime.availableProcessors() : workers;
        boolean wantNative = conf.getBoolean(NATIVE_TRANSPORT_KEY, DEFAULT_NATIVE_TRANSPORT);
        String loops = threads + " event loop(s) (" + WORKER_COUNT_KEY + "=" + workers + (workers == 0 ? ": 2 x cores" : "") + ")";
        if (wantNative && Epoll.isAvailable()) {
            return new NettyEventLoops(true, threads,
                "epoll transport (" + NATIVE_TRANSPORT_KEY + "=true, native library loaded), " + loops);
        }
        String why = !wantNative ? NATIVE_TRANSPORT_KEY + "=false"
            : NATIVE_TRANSPORT_KEY + "=true but epoll is unavailable: " + Epoll.unavailabilityCause();
        return new NettyEventLoops(false, threads, "NIO transport (" + why + "), " + loops);
    }

    /** A new group of {@link #threads} event loops of the chosen kind (daemon threads RpcServer.netty-*). */
    EventLoopGroup newGroup() {
        DefaultThreadFactory names = new DefaultThreadFactory("RpcServer.netty", true);
        return epoll ? new EpollEventLoopGroup(threads, names) : new NioEventLoopGroup(threads, names);
    }

    /** The server channel class matching {@link #newGroup}. */
    Class<? extends ServerChannel> serverChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
