namespace Salsa.Grid.Partitions;

/// <summary>
/// Where an elastic grid's partitions go when its silos change: contiguous runs of partitions of
/// equal size (run <c>j</c> of <c>n</c> is the partitions <c>i</c> with ⌊<c>i·n/P</c>⌋ = <c>j</c>, as
/// <see cref="PartitionKey.SiloOf"/> places them), the runs matched to the silos so that the most
/// partitions stay where they are (an optimal assignment). A silo joining takes the run whose
/// partitions the others can best spare; a silo leaving has its partitions taken by its
/// neighbours' runs — where ordering the silos by address would, by the luck of their ports, also
/// shift the runs of the silos that stay (33 of 64 partitions moved at a join instead of 21).
/// </summary>
public static class RangePlacement
{
    /// <summary>
    /// The silo, of <paramref name="active"/>, each partition goes to, given where each is now
    /// (<paramref name="homes"/>, by silo identity; a silo not active holds nothing that stays).
    /// Deterministic: the same homes and silos give the same targets on every coordinator.
    /// </summary>
    public static string[] Targets(IReadOnlyList<string> homes, IReadOnlyList<string> active)
    {
        ArgumentNullException.ThrowIfNull(homes);
        ArgumentNullException.ThrowIfNull(active);
        if (active.Count == 0)
        {
            throw new ArgumentException("There is no silo to place partitions on.", nameof(active));
        }

        var silos = active.Distinct(StringComparer.Ordinal).Order(StringComparer.Ordinal).ToArray();
        var index = silos.Select((s, i) => (s, i)).ToDictionary(p => p.s, p => p.i, StringComparer.Ordinal);
        var (partitions, runs) = (homes.Count, silos.Length);
        int RunOf(int partition) => (int)((long)partition * runs / partitions);

        // How much of each run each silo holds now; the runs go to the silos so that the most stays.
        var overlap = new int[runs, runs];
        for (var i = 0; i < partitions; i++)
        {
            if (index.TryGetValue(homes[i], out var silo))
            {
                overlap[silo, RunOf(i)]++;
            }
        }

        var runOf = MostKept(overlap);
        var owner = new string[runs];
        for (var s = 0; s < runs; s++)
        {
            owner[runOf[s]] = silos[s];
        }

        return [.. Enumerable.Range(0, partitions).Select(i => owner[RunOf(i)])];
    }

    /// <summary>
    /// The run each silo takes so that the partitions kept in place, the sum of
    /// <paramref name="overlap"/>[silo, run], are the most: the Hungarian method on its negative,
    /// O(n³) for n silos (a millisecond for hundreds).
    /// </summary>
    private static int[] MostKept(int[,] overlap)
    {
        var n = overlap.GetLength(0);
        // Potentials of rows (silos) and columns (runs), 1-based; column 0 is the virtual start.
        var (u, v) = (new long[n + 1], new long[n + 1]);
        var (rowOf, way) = (new int[n + 1], new int[n + 1]);
        for (var row = 1; row <= n; row++)
        {
            rowOf[0] = row;
            var column = 0;
            var least = new long[n + 1];
            Array.Fill(least, long.MaxValue);
            var used = new bool[n + 1];
            do
            {
                used[column] = true;
                var (r, delta, next) = (rowOf[column], long.MaxValue, 0);
                for (var c = 1; c <= n; c++)
                {
                    if (!used[c])
                    {
                        var reduced = -overlap[r - 1, c - 1] - u[r] - v[c];
                        if (reduced < least[c])
                        {
                            (least[c], way[c]) = (reduced, column);
                        }

                        if (least[c] < delta)
                        {
                            (delta, next) = (least[c], c);
                        }
                    }
                }

                for (var c = 0; c <= n; c++)
                {
                    if (used[c])
                    {
                        u[rowOf[c]] += delta;
                        v[c] -= delta;
                    }
                    else
                    {
                        least[c] -= delta;
                    }
                }

                column = next;
            }
            while (rowOf[column] != 0);

            do
            {
                var previous = way[column];
                rowOf[column] = rowOf[previous];
                column = previous;
            }
            while (column != 0);
        }

        var runOf = new int[n];
        for (var c = 1; c <= n; c++)
        {
            runOf[rowOf[c] - 1] = c - 1;
        }

        return runOf;
    }
}
