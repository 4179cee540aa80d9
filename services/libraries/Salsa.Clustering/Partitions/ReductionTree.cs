using System.Numerics;

namespace Salsa.Clustering.Partitions;

// Design: the order in which a pass's partition sums are added, fixed by the partition count alone.
// A binary tree over the partitions [0, P): a node over [lo, hi) of two or more partitions splits at
// lo + the largest power of two below hi − lo, so its left child is a complete subtree. A node's sum
// is its left child's plus its right child's, element by element: whoever adds a node — a silo over
// partitions it holds, a silo forwarding others' answers, the coordinator — adds the same two vectors
// in the same order, so the bits of every node, and of the root, are the same on any silo count and
// any placement. Contiguous partitions on one silo make few maximal nodes (at most two per level),
// which is what a silo forwards instead of one vector per partition.
/// <summary>The fixed reduction tree over a grid's partitions: which sums are added to which, and in what order.</summary>
public static class ReductionTree
{
    /// <summary>A node of the tree: the partitions <c>[Lo, Hi)</c> it adds up.</summary>
    public readonly record struct Node(int Lo, int Hi)
    {
        public int Count => Hi - Lo;

        public bool IsLeaf => Count == 1;

        /// <summary>Where its children meet: its left child is <c>[Lo, Split)</c>, its right <c>[Split, Hi)</c>.</summary>
        public int Split => Lo + (int)BitOperations.RoundUpToPowerOf2((uint)Count) / 2;

        public Node Left => new(Lo, Split);

        public Node Right => new(Split, Hi);
    }

    /// <summary>The root of the tree over <paramref name="partitions"/> partitions.</summary>
    public static Node Root(int partitions)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(partitions);
        return new Node(0, partitions);
    }

    /// <summary>The partitions' sums added in the tree's order.</summary>
    public static double[] Fold(IReadOnlyList<double[]> leaves)
    {
        ArgumentNullException.ThrowIfNull(leaves);
        ArgumentOutOfRangeException.ThrowIfZero(leaves.Count);
        return Sum(Root(leaves.Count), node => leaves[node.Lo]);
    }

    /// <summary>
    /// The largest nodes whose partitions all satisfy <paramref name="held"/>, left to right: what a
    /// silo holding those partitions adds up itself and forwards.
    /// </summary>
    public static IReadOnlyList<Node> Covering(int partitions, Func<int, bool> held)
    {
        ArgumentNullException.ThrowIfNull(held);
        var nodes = new List<Node>();
        Cover(Root(partitions), held, nodes);
        return nodes;
    }

    /// <summary>
    /// Adds nodes' sums into their parents wherever both children are known, until none can be:
    /// what a silo does with the answers it forwards. The tree's order is kept, so the result is the
    /// same bits whoever merges which answers first.
    /// </summary>
    public static void Merge(int partitions, IDictionary<Node, double[]> known)
    {
        ArgumentNullException.ThrowIfNull(known);
        Combine(Root(partitions), known);
    }

    /// <summary>The root's sum from nodes covering every partition (the answers of every silo, merged or not).</summary>
    public static double[] Complete(int partitions, IReadOnlyDictionary<Node, double[]> known)
    {
        ArgumentNullException.ThrowIfNull(known);
        return Sum(Root(partitions), node => known.TryGetValue(node, out var sums) ? sums
            : throw new InvalidOperationException($"No answer covers partition {node.Lo}."), known);
    }

    private static double[] Sum(Node node, Func<Node, double[]> leaf, IReadOnlyDictionary<Node, double[]>? known = null)
    {
        if (known is not null && known.TryGetValue(node, out var given))
        {
            return given;
        }

        if (node.IsLeaf)
        {
            return leaf(node);
        }

        var left = Sum(node.Left, leaf, known);
        var right = Sum(node.Right, leaf, known);
        return Add(left, right);
    }

    private static void Cover(Node node, Func<int, bool> held, List<Node> nodes)
    {
        if (All(node, held))
        {
            nodes.Add(node);
        }
        else if (!node.IsLeaf)
        {
            Cover(node.Left, held, nodes);
            Cover(node.Right, held, nodes);
        }
    }

    private static bool All(Node node, Func<int, bool> held)
    {
        for (var p = node.Lo; p < node.Hi; p++)
        {
            if (!held(p))
            {
                return false;
            }
        }

        return true;
    }

    // True when the node's sum is known (given, or made here from its children's).
    private static bool Combine(Node node, IDictionary<Node, double[]> known)
    {
        if (known.ContainsKey(node))
        {
            return true;
        }

        if (node.IsLeaf)
        {
            return false;
        }

        var left = Combine(node.Left, known);
        var right = Combine(node.Right, known);
        if (!left || !right)
        {
            return false;
        }

        known[node] = Add(known[node.Left], known[node.Right]);
        known.Remove(node.Left);
        known.Remove(node.Right);
        return true;
    }

    private static double[] Add(double[] left, double[] right)
    {
        if (left.Length != right.Length)
        {
            throw new ArgumentException("The partitions' sums are of different lengths.");
        }

        var total = new double[left.Length];
        for (var i = 0; i < total.Length; i++)
        {
            total[i] = left[i] + right[i];
        }

        return total;
    }
}
