package org.heaplab.rpc;

/**
 * The calls a region server answers, with their one-byte wire codes (stable: a code is never reused). The params and cell block of
 * each request and response are listed in engine/docs/wire-protocol.md.
 */
public enum Method {
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
    /** Issue 4: several rows in one call (rows in any regions). */
    MULTI_GET(12),
    /** Issue 4: one batch of a scan (stateless: the client sends the next start row back). */
    SCAN(13),
    /** Issue 4: atomic read-modify-write of a 64-bit counter, WAL-logged. */
    INCREMENT(14),
    /** Issue 4: delete markers (Delete, DeleteColumn, DeleteFamily) through the put path. */
    DELETE(15);

    public final byte code;

    Method(int code) {
        this.code = (byte) code;
    }

    /** The method with wire code {@code code}, or null when this server does not know it. */
    public static Method of(byte code) {
        for (Method m : values()) {
            if (m.code == code) {
                return m;
            }
        }
        return null;
    }
}
