import java.util.Arrays;

/**
 * A jHiccup-style hiccup meter: a daemon thread that sleeps 1 ms over and over and
 * records, for each wake-up, how much later than 1 ms it came (ns, never negative).
 * Whatever stops the process (GC pauses, time-to-safepoint, scheduling) shows up as
 * a late wake-up.
 *
 * {@link #report()} stops the thread and returns one machine-readable line:
 * {@code HICCUP p50_ns=.. p99_ns=.. p999_ns=.. max_ns=.. samples=..}
 * (nearest-rank percentiles over the sorted samples).
 */
final class HiccupMeter implements Runnable {
    private static final long INTERVAL_NS = 1_000_000L;

    // Written only by the meter thread until it has been joined.
    private long[] samples = new long[1 << 16];
    private int count;
    private volatile boolean stop;
    private final Thread thread;

    private HiccupMeter() {
        thread = new Thread(this, "hiccup-meter");
        thread.setDaemon(true);
        thread.setPriority(Thread.MAX_PRIORITY);
    }

    /** Starts a meter thread. */
    static HiccupMeter start() {
        HiccupMeter m = new HiccupMeter();
        m.thread.start();
        return m;
    }

    @Override
    public void run() {
        while (!stop) {
            long before = System.nanoTime();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
            long late = System.nanoTime() - before - INTERVAL_NS;
            if (count == samples.length) {
                samples = Arrays.copyOf(samples, samples.length * 2);
            }
            samples[count++] = late < 0 ? 0 : late;
        }
    }

    /**
     * Nearest rank: the smallest sample with at least {@code perTenThousand}/10000 of
     * all samples at or below it (integer arithmetic, so p99 of 100 samples is the 99th).
     */
    static long percentile(long[] sorted, long perTenThousand) {
        if (sorted.length == 0) {
            return 0;
        }
        long n = sorted.length;
        long rank = (n * perTenThousand + 9_999) / 10_000;
        if (rank < 1) {
            rank = 1;
        }
        return sorted[(int) Math.min(rank, n) - 1];
    }

    /** Stops the meter and returns the HICCUP line. */
    String report() {
        stop = true;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long[] s = Arrays.copyOf(samples, count);
        Arrays.sort(s);
        return "HICCUP p50_ns=" + percentile(s, 5_000)
                + " p99_ns=" + percentile(s, 9_900)
                + " p999_ns=" + percentile(s, 9_990)
                + " max_ns=" + (s.length == 0 ? 0 : s[s.length - 1])
                + " samples=" + s.length;
    }
}
