package org.heaplab.rpc.protocol;

/**
 * The calls a region server answers, with their one-byte wire codes (stable: a code is never reused). The params and cell block of
 * each request and response are listed in engine/docs/wire-protocol.md.
 */
public enum Method {
    // Data methods 6, 7, 12-15 go to the region server holding the row; DDL and admin methods to the master
    // (a standalone region server answers them itself); 17-19 are between the master and region servers.

    STATUS(1),
    CREATE_TABLE(2),
    DROP_TABLE(3),
    TABLE_EXISTS(4),
    LIST_TABLES(5),
    PUT(6),
    GET(7),
    FLUSH(8),
    MAJOR_COMPACT(9),
    LIST_REGIONS(10),
    METRICS(11),
    /** Several rows in one call (rows in any regions). */
    MULTI_GET(12),
    /** One batch of a scan (stateless: the client sends the next start row back). */
    SCAN(13),
    /** Atomic read-modify-write of a 64-bit counter, WAL-logged. */
    INCREMENT(14),
    /** Delete markers (Delete, DeleteColumn, DeleteFamily) through the put path. */
    DELETE(15),
    /** Where a table's regions are served (the master answers; a standalone region server answers for itself). */
    LOCATE(16),
    /** A region server announces itself to the master (region server to master). */
    REGISTER(17),
    /** A region server's periodic "still alive" (region server to master). */
    HEARTBEAT(18),
    /** The master tells a region server to create and serve some regions of a new table. */
    OPEN_REGIONS(19),
    /** The master's view of the cluster as JSON (admin status). */
    CLUSTER_STATUS(20);

    public final byte code;

    /** Values() once: it clones the array on every call, and every request is decoded through {@link #of}. */
    private static final Method[] VALUES = values();

    Method(int code) {
        this.code = (byte) code;
    }

    /** The method with wire code {@code code}, or null when this server does not know it. */
    public static Method of(byte code) {
        for (Method m : VALUES) {
            if (m.code == code) {
                return m;
            }
        }
        return null;
    }
}
