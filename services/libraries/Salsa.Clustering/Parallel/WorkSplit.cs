namespace Salsa.Clustering.Parallel;

/// <summary>
/// Contiguous runs of items of unequal cost, one run per rank, cut where the running cost crosses
/// r/size of the total. Which rank does an item never changes what is computed for it, so this only
/// balances time; results stay the same for any number of ranks.
/// </summary>
internal static class WorkSplit
{
    /// <summary>prefix[i] = cost of items [0, i); length items + 1.</summary>
    public static long[] Prefix(int items, Func<int, long> cost)
    {
        var prefix = new long[items + 1];
        for (var i = 0; i < items; i++)
        {
            prefix[i + 1] = prefix[i] + cost(i);
        }

        return prefix;
    }

    /// <summary>The items rank <paramref name="rank"/> of <paramref name="size"/> takes: [Start, End).</summary>
    public static (int Start, int End) Range(long[] prefix, int rank, int size)
    {
        var items = prefix.Length - 1;
        var total = prefix[items];
        var start = rank == 0 ? 0 : FirstAtOrAbove(prefix, total * rank / size);
        var end = rank == size - 1 ? items : FirstAtOrAbove(prefix, total * (rank + 1) / size);
        return (start, Math.Max(start, end));
    }

    private static int FirstAtOrAbove(long[] prefix, long target)
    {
        int low = 0, high = prefix.Length - 1;
        while (low < high)
        {
            var mid = (low + high) >>> 1;
            if (prefix[mid] >= target)
            {
                high = mid;
            }
            else
            {
                low = mid + 1;
            }
        }

        return low;
    }
}
