package org.heaplab.rpc.protocol;

/**
 * The answers both RPC servers give to a frame whose declared length they refuse, before reading its body
 * (SimpleRpcServer's SimpleConnection, NettyRpcServer's FrameDecoder); each closes the connection after
 * sending it, since the stream's framing cannot be trusted any more.
 */
public final class FrameErrors {
    private FrameErrors() {
    }

    /** A length below the request header: nothing in it can be a call, not even its id. */
    public static byte[] belowHeader(int length) {
        return FrameWriter.error(RpcConstants.NO_CALL_ID, ErrorCode.MALFORMED_REQUEST, MalformedFrameException.class.getName(),
            "frame length " + length + " is below the " + RpcConstants.MIN_REQUEST_BODY
                + "-byte request header; closing the connection");
    }

    /** A length above {@code key}'s {@code bound}: answered with the call id, read from the frame's next 4 bytes. */
    public static byte[] tooBig(int callId, long length, String key, long bound) {
        return FrameWriter.error(callId, ErrorCode.REQUEST_TOO_BIG, "org.heaplab.rpc.protocol.RequestTooBigException",
            "request of " + length + " bytes exceeds " + key + " (" + bound + "); closing the connection");
    }
}
