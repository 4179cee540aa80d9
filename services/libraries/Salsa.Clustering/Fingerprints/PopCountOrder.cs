namespace Salsa.Clustering.Fingerprints;

/// <summary>
/// Fingerprints sorted by bit count (ties by index), copied contiguously in that order. Within a
/// distance cut-off the popcount bound leaves each print a window of partners, and in this order the
/// window of the prints after position a is one run [a + 1, End(a)): the neighbour search scans it
/// and nothing else.
/// </summary>
internal sealed class PopCountOrder
{
    public PopCountOrder(BinaryVectors points, double cutoff)
    {
        var n = points.Count;
        Words = points.Words;
        var keys = new long[n];
        Order = new int[n];
        for (var i = 0; i < n; i++)
        {
            keys[i] = ((long)points.PopCount(i) << 32) | (uint)i;
            Order[i] = i;
        }

        Array.Sort(keys, Order);
        PopCounts = new int[n];
        Packed = new ulong[n * Words];
        for (var a = 0; a < n; a++)
        {
            PopCounts[a] = points.PopCount(Order[a]);
            points.Fingerprint(Order[a]).CopyTo(Packed.AsSpan(a * Words, Words));
        }

        // firstAbove[q]: the first position whose print has more than q bits.
        var firstAbove = new int[points.Bits + 2];
        for (int q = 0, a = 0; q < firstAbove.Length; q++)
        {
            while (a < n && PopCounts[a] <= q)
            {
                a++;
            }

            firstAbove[q] = a;
        }

        var highest = new int[points.Bits + 1];
        for (var p = 0; p <= points.Bits; p++)
        {
            highest[p] = HighestPartner(p, points.Bits, cutoff);
        }

        End = new int[n];
        MinCommon = new int[points.Bits + 1][];
        for (var a = 0; a < n; a++)
        {
            var p = PopCounts[a];
            End[a] = Math.Max(a + 1, firstAbove[highest[p]]);
            MinCommon[p] ??= CommonThresholds(p, highest[p], cutoff);
        }
    }

    /// <summary>
    /// For a print of p bits, <c>MinCommon[p][q − p]</c> is the fewest common bits a partner of q ≥ p
    /// bits needs to lie within the cut-off (int.MaxValue: none can). The distance the library computes
    /// falls as the common count rises (monotone rounding), so this integer test gives exactly the
    /// answer of the floating-point one, without a division per pair. Only popcounts that occur get a row.
    /// </summary>
    public int[][] MinCommon { get; }

    /// <summary>Sorted position → index in the original set.</summary>
    public int[] Order { get; }

    public int[] PopCounts { get; }

    public ulong[] Packed { get; }

    public int Words { get; }

    /// <summary>Partners of position a that can lie within the cut-off are at [a + 1, End[a]).</summary>
    public int[] End { get; }

    public ReadOnlySpan<ulong> Fingerprint(int position) => Packed.AsSpan(position * Words, Words);

    /// <summary>Candidate pairs the search will compare: Σ (End[a] − a − 1).</summary>
    public long Candidates(int position) => End[position] - position - 1;

    private static int[] CommonThresholds(int p, int highest, double cutoff)
    {
        var thresholds = new int[highest - p + 1];
        for (var q = p; q <= highest; q++)
        {
            // The first c in [0, p] within the cut-off; p + 1 stands for none.
            int low = 0, high = p + 1;
            while (low < high)
            {
                var mid = (low + high) >>> 1;
                if (Tanimoto.DistanceFromCounts(mid, p, q) <= cutoff)
                {
                    high = mid;
                }
                else
                {
                    low = mid + 1;
                }
            }

            thresholds[q - p] = low <= p ? low : int.MaxValue;
        }

        return thresholds;
    }

    /// <summary>The largest q ≥ p whose bound does not exclude a pair of p and q bits (the bound grows with q).</summary>
    private static int HighestPartner(int p, int bits, double cutoff)
    {
        var q = p;
        while (q < bits && !(Tanimoto.DistanceBound(p, q + 1) > cutoff))
        {
            q++;
        }

        return q;
    }
}
