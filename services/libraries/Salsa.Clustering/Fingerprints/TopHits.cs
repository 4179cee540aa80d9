namespace Salsa.Clustering.Fingerprints;

/// <summary>
/// The k best (distance, compound) pairs seen so far, as a max-heap on (distance, index): a smaller
/// distance wins, and of equal distances the smaller compound index, so the answer is unique.
/// </summary>
internal sealed class TopHits(int k)
{
    private readonly double[] _distances = new double[k];
    private readonly int[] _compounds = new int[k];
    private readonly double[] _similarities = new double[k];
    private int _count;

    /// <summary>The k-th best distance, +∞ while fewer than k are held: anything farther cannot enter.</summary>
    public double Worst => _count < _distances.Length ? double.PositiveInfinity : _distances[0];

    public void Offer(double distance, double similarity, int compound)
    {
        if (_count < _distances.Length)
        {
            var at = _count++;
            Set(at, distance, similarity, compound);
            SiftUp(at);
            return;
        }

        if (!Before(distance, compound, _distances[0], _compounds[0]))
        {
            return;
        }

        Set(0, distance, similarity, compound);
        SiftDown(0);
    }

    /// <summary>The hits, best first.</summary>
    public SimilarityHit[] ToSortedArray()
    {
        var hits = new SimilarityHit[_count];
        for (var i = 0; i < _count; i++)
        {
            hits[i] = new SimilarityHit(_compounds[i], _similarities[i], _distances[i]);
        }

        Array.Sort(hits, static (x, y) => x.Distance != y.Distance ? x.Distance.CompareTo(y.Distance) : x.Compound.CompareTo(y.Compound));
        return hits;
    }

    private static bool Before(double distance, int compound, double otherDistance, int otherCompound) =>
        distance < otherDistance || (distance == otherDistance && compound < otherCompound);

    private void Set(int at, double distance, double similarity, int compound)
    {
        _distances[at] = distance;
        _similarities[at] = similarity;
        _compounds[at] = compound;
    }

    private void Swap(int a, int b)
    {
        (_distances[a], _distances[b]) = (_distances[b], _distances[a]);
        (_compounds[a], _compounds[b]) = (_compounds[b], _compounds[a]);
        (_similarities[a], _similarities[b]) = (_similarities[b], _similarities[a]);
    }

    private void SiftUp(int at)
    {
        while (at > 0)
        {
            var parent = (at - 1) / 2;
            if (!Before(_distances[parent], _compounds[parent], _distances[at], _compounds[at]))
            {
                return;
            }

            Swap(at, parent);
            at = parent;
        }
    }

    private void SiftDown(int at)
    {
        while (true)
        {
            var largest = at;
            foreach (var child in (ReadOnlySpan<int>)[2 * at + 1, 2 * at + 2])
            {
                if (child < _count && Before(_distances[largest], _compounds[largest], _distances[child], _compounds[child]))
                {
                    largest = child;
                }
            }

            if (largest == at)
            {
                return;
            }

            Swap(at, largest);
            at = largest;
        }
    }
}
