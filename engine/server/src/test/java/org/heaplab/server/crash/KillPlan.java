package org.heaplab.server.crash;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.heaplab.core.util.CrashPoints;

/**
 * Which kills a run makes, from a seed. The default run kills once at every named crash point
 * ({@link CrashPoints#ALL}) and once at a random moment ({@link #ANYWHERE}: kill -9 after a random number of
 * acknowledged writes), the server variants in turn. The soak (HEAPLAB_SOAK=1) makes {@link #SOAK_KILLS}
 * kills, each at a random point, arrival and variant.
 */
final class KillPlan {
    /** Not a named point: destroyForcibly (SIGKILL) after {@link Kill#afterAcks} acknowledged writes. */
    static final String ANYWHERE = "anywhere";
    static final int SOAK_KILLS = 500;
    /** Kills on one data directory before the soak starts a fresh one (keeps each check's scan small). */
    static final int SOAK_KILLS_PER_EPOCH = 10;

    /**
     * One kill: the point and the arrival at which the child halts (its n-th time there), or for
     * {@link #ANYWHERE} the number of acknowledged writes after which it is killed; the server variant.
     */
    record Kill(String point, int nth, int afterAcks, ServerVariant variant) {
        /** The child's -D flag, or null for {@link #ANYWHERE}. */
        String flag() {
            return point.equals(ANYWHERE) ? null : "-D" + CrashPoints.KEY + "=" + point + ":" + nth;
        }

        @Override
        public String toString() {
            return (point.equals(ANYWHERE) ? "SIGKILL after " + afterAcks + " acks" : point + " #" + nth)
                + " on " + variant;
        }
    }

    private KillPlan() {
    }

    static List<Kill> defaultRun(Random random) {
        List<String> points = new ArrayList<>(CrashPoints.ALL);
        points.add(ANYWHERE);
        List<Kill> kills = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            kills.add(kill(points.get(i), 3, ServerVariant.ALL.get(i % ServerVariant.ALL.size()), random));
        }
        return kills;
    }

    static List<Kill> soak(Random random) {
        List<String> points = new ArrayList<>(CrashPoints.ALL);
        points.add(ANYWHERE);
        List<Kill> kills = new ArrayList<>();
        for (int i = 0; i < SOAK_KILLS; i++) {
            kills.add(kill(points.get(random.nextInt(points.size())), 8,
                ServerVariant.ALL.get(random.nextInt(ServerVariant.ALL.size())), random));
        }
        return kills;
    }

    private static Kill kill(String point, int maxNth, ServerVariant variant, Random random) {
        return new Kill(point, 1 + random.nextInt(maxNth), 100 + random.nextInt(1500), variant);
    }
}
