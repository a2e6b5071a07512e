import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * binary-trees in the Computer Language Benchmarks Game shape, as a JVM peer for
 * flipgc's pause comparison.
 *
 * <pre>
 * java BinaryTrees [depth] [--threads N]      defaults: depth 21, 1 thread
 * </pre>
 *
 * minDepth = 4, maxDepth = max(minDepth + 2, depth). A stretch tree of depth
 * maxDepth + 1 is built, checked and dropped; a long-lived tree of depth maxDepth is
 * kept; then for each depth d from minDepth to maxDepth step 2,
 * 2^(maxDepth - d + minDepth) trees of depth d are built bottom-up and checked.
 * With {@code --threads N} the trees of every depth are split into N chunks and all
 * chunks are shared out over N worker threads; output order does not change.
 *
 * After the standard lines come two machine-readable ones: {@code HICCUP ...} (see
 * HiccupMeter) and {@code WALL_NS=...} (main's run time, JVM start-up excluded).
 */
public final class BinaryTrees {
    private static final int MIN_DEPTH = 4;

    static final class Node {
        final Node left;
        final Node right;

        Node(Node left, Node right) {
            this.left = left;
            this.right = right;
        }

        /** Number of nodes in the tree. */
        int check() {
            return left == null ? 1 : 1 + left.check() + right.check();
        }
    }

    static Node bottomUp(int depth) {
        return depth > 0 ? new Node(bottomUp(depth - 1), bottomUp(depth - 1)) : new Node(null, null);
    }

    static void usage() {
        System.err.println("usage: BinaryTrees [depth] [--threads N]  (defaults 21, 1)");
        System.exit(2);
    }

    public static void main(String[] args) throws InterruptedException {
        int n = 21;
        int threads = 1;
        for (int k = 0; k < args.length; k++) {
            try {
                if (args[k].equals("--threads") && k + 1 < args.length) {
                    threads = Integer.parseInt(args[++k]);
                } else if (args[k].startsWith("--threads=")) {
                    threads = Integer.parseInt(args[k].substring("--threads=".length()));
                } else if (args[k].startsWith("-")) {
                    usage();
                } else {
                    n = Integer.parseInt(args[k]);
                }
            } catch (NumberFormatException e) {
                usage();
            }
        }
        if (threads < 1 || n < 0 || n > 28) {
            usage();
        }

        HiccupMeter meter = HiccupMeter.start();
        long t0 = System.nanoTime();

        final int maxDepth = Math.max(MIN_DEPTH + 2, n);
        final int stretchDepth = maxDepth + 1;

        System.out.println("stretch tree of depth " + stretchDepth + "\t check: " + bottomUp(stretchDepth).check());

        final Node longLived = bottomUp(maxDepth);

        final int depths = (maxDepth - MIN_DEPTH) / 2 + 1;
        final long[] iterations = new long[depths];
        final AtomicLongArray checks = new AtomicLongArray(depths);
        for (int i = 0; i < depths; i++) {
            iterations[i] = 1L << (maxDepth - (MIN_DEPTH + 2 * i) + MIN_DEPTH);
        }
        if (threads == 1) {
            for (int i = 0; i < depths; i++) {
                int d = MIN_DEPTH + 2 * i;
                long check = 0;
                for (long it = 0; it < iterations[i]; it++) {
                    check += bottomUp(d).check();
                }
                checks.set(i, check);
            }
        } else {
            // Work items: (depth index, chunk) pairs, handed out in depth order.
            final int chunks = threads;
            final AtomicInteger next = new AtomicInteger();
            final int items = depths * chunks;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    for (int item; (item = next.getAndIncrement()) < items; ) {
                        int i = item / chunks;
                        int c = item % chunks;
                        long all = iterations[i];
                        long from = all * c / chunks;
                        long to = all * (c + 1) / chunks;
                        int d = MIN_DEPTH + 2 * i;
                        long check = 0;
                        for (long it = from; it < to; it++) {
                            check += bottomUp(d).check();
                        }
                        checks.addAndGet(i, check);
                    }
                }, "binarytrees-" + t);
                workers.add(w);
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
        }
        for (int i = 0; i < depths; i++) {
            System.out.println(iterations[i] + "\t trees of depth " + (MIN_DEPTH + 2 * i) + "\t check: " + checks.get(i));
        }

        System.out.println("long lived tree of depth " + maxDepth + "\t check: " + longLived.check());

        long wall = System.nanoTime() - t0;
        System.out.println(meter.report());
        System.out.println("WALL_NS=" + wall);
    }
}
