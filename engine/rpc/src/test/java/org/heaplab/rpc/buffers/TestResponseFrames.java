package org.heaplab.rpc.buffers;

import java.nio.ByteBuffer;

/** Response frames over any buffers, for tests outside this package ({@link ResponseFrame}'s factories are package-private). */
public final class TestResponseFrames {
    private TestResponseFrames() {
    }

    /** A frame of {@code buffers} (their bytes from position to limit) that runs {@code onRelease} on its release. */
    public static ResponseFrame over(Runnable onRelease, ByteBuffer... buffers) {
        int length = 0;
        for (ByteBuffer b : buffers) {
            length += b.remaining();
        }
        return ResponseFrame.pooled(RequestBuffer.of(buffers, length, rb -> onRelease.run()));
    }
}
