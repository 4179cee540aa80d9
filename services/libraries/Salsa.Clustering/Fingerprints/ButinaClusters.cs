namespace Salsa.Clustering.Fingerprints;

/// <summary>The sequential Butina pass over exact neighbour lists, and the clusters it makes.</summary>
internal sealed class ButinaClusters
{
    private ButinaClusters(int[] assignments, int[] centroids, int[] members, int[] memberOffsets)
    {
        Assignments = assignments;
        Centroids = centroids;
        Members = members;
        MemberOffsets = memberOffsets;
        Sizes = new int[centroids.Length];
        for (var c = 0; c < Sizes.Length; c++)
        {
            Sizes[c] = memberOffsets[c + 1] - memberOffsets[c];
        }
    }

    public int Count => Centroids.Length;

    public int[] Assignments { get; }

    public int[] Centroids { get; }

    public int[] Sizes { get; }

    public int[] Members { get; }

    public int[] MemberOffsets { get; }

    public ReadOnlySpan<int> MembersOf(int cluster) => Members.AsSpan(MemberOffsets[cluster], Sizes[cluster]);

    /// <summary>
    /// Compounds by decreasing neighbour count, ties by decreasing index (RDKit's order: its Butina
    /// sorts (count, index) pairs in reverse, so the same data give the same clusters); each one still unassigned
    /// becomes a centroid and takes its unassigned neighbours (rows sorted, so members follow the
    /// centroid by increasing index). A compound with no free neighbour is a singleton.
    /// </summary>
    public static ButinaClusters Build(int[] degrees, int[] offsets, int[] neighbours)
    {
        var n = degrees.Length;
        var keys = new long[n];
        for (var i = 0; i < n; i++)
        {
            keys[i] = ((long)(int.MaxValue - degrees[i]) << 32) | (uint)(int.MaxValue - i);
        }

        Array.Sort(keys);
        var assignments = new int[n];
        Array.Fill(assignments, -1);
        var members = new int[n];
        var memberOffsets = new List<int>();
        var centroids = new List<int>();
        var at = 0;
        foreach (var key in keys)
        {
            var centroid = int.MaxValue - (int)(key & uint.MaxValue);
            if (assignments[centroid] >= 0)
            {
                continue;
            }

            var cluster = centroids.Count;
            centroids.Add(centroid);
            memberOffsets.Add(at);
            assignments[centroid] = cluster;
            members[at++] = centroid;
            foreach (var neighbour in neighbours.AsSpan(offsets[centroid], offsets[centroid + 1] - offsets[centroid]))
            {
                if (assignments[neighbour] < 0)
                {
                    assignments[neighbour] = cluster;
                    members[at++] = neighbour;
                }
            }
        }

        memberOffsets.Add(at);
        return new ButinaClusters(assignments, [.. centroids], members, [.. memberOffsets]);
    }
}
