/**
 * GCBench in the shape of the Boehm-Ellis-Kovac benchmark, as a JVM peer for
 * flipgc's pause comparison.
 *
 * <pre>
 * java GCBench [stretch [longLived [arraySize [minDepth [maxDepth [rounds]]]]]]
 *              defaults: 22 18 500000 4 20 8
 * </pre>
 *
 * A stretch tree of depth {@code stretch} is built and dropped first. Then a
 * long-lived tree (depth {@code longLived}) and a long-lived array of
 * {@code arraySize} doubles are kept alive for the whole run. The depth sweep
 * (minDepth to maxDepth, step 2) is repeated {@code rounds} times; at each depth,
 * {@code 2 * treeSize(stretch) / treeSize(depth)} short-lived trees are built top-down
 * (populate an empty root) and as many bottom-up, where
 * {@code treeSize(d) = 2^(d+1) - 1}. At the end the long-lived tree and array are
 * checked; the process exits with status 1 if either is damaged.
 *
 * The last two lines are machine-readable: {@code HICCUP ...} (see HiccupMeter) and
 * {@code WALL_NS=...} (main's run time, JVM start-up excluded).
 */
public final class GCBench {

    /** Two references and two integer fields (declared long, 8 bytes each). */
    static final class Node {
        Node left;
        Node right;
        long i;
        long j;

        Node() {
        }

        Node(Node left, Node right) {
            this.left = left;
            this.right = right;
        }
    }

    /** Keeps the JIT from proving the short-lived trees dead. */
    static long sink;

    static long treeSize(int depth) {
        return (1L << (depth + 1)) - 1;
    }

    static long numIters(int stretch, int depth) {
        return 2 * treeSize(stretch) / treeSize(depth);
    }

    /** Top-down: gives {@code node} children down to {@code depth} more levels. */
    static void populate(int depth, Node node) {
        if (depth <= 0) {
            return;
        }
        depth--;
        node.left = new Node();
        node.right = new Node();
        node.i = depth;
        populate(depth, node.left);
        populate(depth, node.right);
    }

    /** Bottom-up: builds the children first, then the parent. */
    static Node makeTree(int depth) {
        if (depth <= 0) {
            return new Node();
        }
        Node n = new Node(makeTree(depth - 1), makeTree(depth - 1));
        n.i = depth - 1;
        return n;
    }

    static void timeConstruction(int stretch, int depth) {
        long iters = numIters(stretch, depth);
        long acc = 0;
        for (long k = 0; k < iters; k++) {
            Node temp = new Node();
            populate(depth, temp);
            acc += temp.i;
        }
        for (long k = 0; k < iters; k++) {
            Node temp = makeTree(depth);
            acc += temp.i;
        }
        sink += acc;
    }

    /**
     * Checks that {@code node} is a complete tree of {@code depth} more levels, as
     * {@code populate} left it (each inner node's i = levels below it minus one).
     * Returns the node count, or -1 if the tree is damaged.
     */
    static long check(Node node, int depth) {
        if (node == null) {
            return -1;
        }
        if (depth <= 0) {
            return (node.left == null && node.right == null) ? 1 : -1;
        }
        if (node.i != depth - 1) {
            return -1;
        }
        long l = check(node.left, depth - 1);
        long r = check(node.right, depth - 1);
        return (l < 0 || r < 0) ? -1 : 1 + l + r;
    }

    static int arg(String[] args, int k, int dflt) {
        if (args.length <= k) {
            return dflt;
        }
        try {
            return Integer.parseInt(args[k]);
        } catch (NumberFormatException e) {
            System.err.println("GCBench: not an integer: " + args[k]);
            System.exit(2);
            return dflt;
        }
    }

    public static void main(String[] args) {
        if (args.length > 6 || (args.length > 0 && (args[0].equals("-h") || args[0].equals("--help")))) {
            System.err.println("usage: GCBench [stretch [longLived [arraySize [minDepth [maxDepth [rounds]]]]]]"
                    + "  (defaults 22 18 500000 4 20 8)");
            System.exit(2);
        }
        final int stretch = arg(args, 0, 22);
        final int longLived = arg(args, 1, 18);
        final int arraySize = arg(args, 2, 500_000);
        final int minDepth = arg(args, 3, 4);
        final int maxDepth = arg(args, 4, 20);
        final int rounds = arg(args, 5, 8);
        if (stretch < 0 || stretch > 30 || longLived < 0 || longLived > 30 || arraySize < 2002
                || minDepth < 0 || maxDepth < minDepth || maxDepth > stretch || rounds < 0) {
            System.err.println("GCBench: arguments out of range (need 0 <= minDepth <= maxDepth <= stretch <= 30,"
                    + " longLived <= 30, arraySize >= 2002, rounds >= 0)");
            System.exit(2);
        }

        HiccupMeter meter = HiccupMeter.start();
        long t0 = System.nanoTime();

        System.out.println("GCBench: stretch " + stretch + ", long-lived " + longLived + ", array "
                + arraySize + ", depths " + minDepth + ".." + maxDepth + ", rounds " + rounds);
        System.out.println(" Stretching memory with a binary tree of depth " + stretch);
        Node temp = makeTree(stretch);
        sink += temp.i;
        temp = null;

        System.out.println(" Creating a long-lived binary tree of depth " + longLived);
        Node longLivedTree = new Node();
        populate(longLived, longLivedTree);

        System.out.println(" Creating a long-lived array of " + arraySize + " doubles");
        double[] array = new double[arraySize];
        for (int k = 0; k < arraySize / 2; k++) {
            array[k] = 1.0 / k;
        }

        for (int round = 0; round < rounds; round++) {
            long r0 = System.nanoTime();
            for (int d = minDepth; d <= maxDepth; d += 2) {
                timeConstruction(stretch, d);
            }
            System.out.printf(" round %d: depths %d..%d, %d ms%n", round + 1, minDepth, maxDepth,
                    (System.nanoTime() - r0) / 1_000_000);
        }

        boolean ok = check(longLivedTree, longLived) == treeSize(longLived);
        for (int k = 1; k < arraySize && ok; k++) {
            double want = k < arraySize / 2 ? 1.0 / k : 0.0;
            ok = array[k] == want;
        }
        ok = ok && array[1000] == 1.0 / 1000;

        long wall = System.nanoTime() - t0;
        System.out.println(" sink " + sink);
        System.out.println(meter.report());
        System.out.println("WALL_NS=" + wall);
        if (!ok) {
            System.out.println("GCBench: FAILED: long-lived tree or array damaged");
            System.exit(1);
        }
        System.out.println("GCBench: long-lived data intact");
    }
}
