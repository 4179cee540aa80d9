using Salsa.Clustering.Partitions;
using Node = Salsa.Clustering.Partitions.ReductionTree.Node;

namespace Salsa.Clustering.Tests;

/// <summary>The fixed reduction tree: its shape from the partition count alone, and the same bits however silos split and forward it.</summary>
public sealed class ReductionTreeTests
{
    [Fact]
    public void Fold_AddsInTheTreesOrder_LeftChildrenComplete()
    {
        double[] V(double x) => [x];
        var (a, b, c, d, e) = (1e16, 1.0, -1e16, 1.0, 3.0);

        Assert.Equal((a + b) + c, ReductionTree.Fold([V(a), V(b), V(c)])[0]);
        Assert.Equal((a + b) + (c + d), ReductionTree.Fold([V(a), V(b), V(c), V(d)])[0]);
        Assert.Equal(((a + b) + (c + d)) + e, ReductionTree.Fold([V(a), V(b), V(c), V(d), V(e)])[0]);
        Assert.Equal(new Node(0, 4), new Node(0, 6).Left);
        Assert.Equal(new Node(10, 12), new Node(8, 12).Right);
    }

    [Fact]
    public void AContiguousRange_IsCoveredByAtMostTwoNodesALevel()
    {
        for (var partitions = 1; partitions <= 200; partitions++)
        {
            var levels = (int)Math.Ceiling(Math.Log2(partitions)) + 1;
            for (var lo = 0; lo < partitions; lo++)
            {
                for (var hi = lo + 1; hi <= partitions; hi++)
                {
                    var nodes = ReductionTree.Covering(partitions, p => p >= lo && p < hi);
                    Assert.Equal(Enumerable.Range(lo, hi - lo), nodes.SelectMany(n => Enumerable.Range(n.Lo, n.Count)));
                    Assert.True(nodes.Count <= 2 * levels, $"[{lo}, {hi}) of {partitions}: {nodes.Count} nodes");
                }
            }
        }
    }

    [Fact]
    public void AnySilosAnyPlacementAnyForwarding_TheSameBitsAsTheFold()
    {
        // Thousands of grids: partitions placed on silos (in runs, or scattered), each silo adding up
        // the largest nodes it holds, answers forwarded up a random tree of silos that merge what they
        // get, the coordinator completing the rest. Values of wildly different sizes make every
        // change of order show in the bits.
        var random = new Random(20261207);
        for (var trial = 0; trial < 3_000; trial++)
        {
            var partitions = random.Next(1, 97);
            var silos = random.Next(1, Math.Min(partitions, 16) + 1);
            var length = random.Next(1, 5);
            var leaves = Enumerable.Range(0, partitions)
                .Select(_ => Enumerable.Range(0, length).Select(_ => Math.ScaleB(random.NextDouble() - 0.5, random.Next(-40, 40))).ToArray())
                .ToArray();
            var home = random.Next(2) == 0
                ? Enumerable.Range(0, partitions).Select(p => p * silos / partitions).ToArray()
                : Enumerable.Range(0, partitions).Select(_ => random.Next(silos)).ToArray();

            var answers = Enumerable.Range(0, silos).Select(silo =>
            {
                var own = new Dictionary<Node, double[]>();
                for (var p = 0; p < partitions; p++)
                {
                    if (home[p] == silo)
                    {
                        own[new Node(p, p + 1)] = leaves[p];
                    }
                }

                ReductionTree.Merge(partitions, own);
                return own;
            }).ToList();

            // Forwarded: random pairs of answers merge until one is left or the coordinator takes the rest.
            while (answers.Count > 1 && random.Next(4) != 0)
            {
                var (i, j) = (random.Next(answers.Count), random.Next(answers.Count));
                if (i == j)
                {
                    continue;
                }

                foreach (var (node, sums) in answers[j])
                {
                    answers[i][node] = sums;
                }

                ReductionTree.Merge(partitions, answers[i]);
                answers.RemoveAt(j);
            }

            var all = answers.SelectMany(a => a).ToDictionary(kv => kv.Key, kv => kv.Value);
            var root = ReductionTree.Complete(partitions, all);
            Assert.Equal(ReductionTree.Fold(leaves), root);
        }
    }
}
