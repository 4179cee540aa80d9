using System.Numerics;

namespace Salsa.Clustering;

/// <summary>
/// Weighted bit vectors (fingerprints), packed as little-endian 64-bit words, <c>Words</c> per
/// point. Besides the packed words it keeps each point's set-bit indices: the binary kernels run
/// over set bits only (x·y = Σ over x's bits of y), which is what makes them fast on sparse prints.
/// </summary>
public sealed class BinaryVectors
{
    public BinaryVectors(ulong[] words, int bits, double[]? weights = null)
    {
        ArgumentNullException.ThrowIfNull(words);
        if (bits < 1)
        {
            throw new ClusteringInputException($"A fingerprint needs at least one bit; {bits} were given.", nameof(bits));
        }

        Bits = bits;
        Words = (bits + 63) / 64;
        if (words.Length == 0)
        {
            throw new ClusteringInputException("There are no fingerprints.", nameof(words));
        }

        if (words.Length % Words != 0)
        {
            throw new ClusteringInputException($"{words.Length} words do not make whole {bits}-bit fingerprints ({Words} words each).", nameof(words));
        }

        Count = words.Length / Words;
        var tail = bits % 64;
        if (tail != 0)
        {
            for (var i = 0; i < Count; i++)
            {
                if (words[i * Words + Words - 1] >> tail != 0)
                {
                    throw new ClusteringInputException($"Fingerprint {i} sets bits beyond bit {bits - 1}.", nameof(words));
                }
            }
        }

        Packed = words;
        Weights = PointWeights.Validate(weights, Count);
        TotalWeight = PointWeights.Total(Weights);

        Offsets = new int[Count + 1];
        for (var i = 0; i < Count; i++)
        {
            var count = 0;
            foreach (var word in words.AsSpan(i * Words, Words))
            {
                count += BitOperations.PopCount(word);
            }

            Offsets[i + 1] = Offsets[i] + count;
        }

        SetBits = new ushort[Offsets[Count]];
        if (bits > ushort.MaxValue + 1)
        {
            throw new ClusteringInputException($"Fingerprints of {bits} bits are longer than the {ushort.MaxValue + 1} supported.", nameof(bits));
        }

        for (var i = 0; i < Count; i++)
        {
            var at = Offsets[i];
            for (var w = 0; w < Words; w++)
            {
                for (var word = words[i * Words + w]; word != 0; word &= word - 1)
                {
                    SetBits[at++] = (ushort)(w * 64 + BitOperations.TrailingZeroCount(word));
                }
            }
        }
    }

    public int Count { get; }

    public int Bits { get; }

    /// <summary>64-bit words per fingerprint.</summary>
    public int Words { get; }

    public ulong[] Packed { get; }

    public double[] Weights { get; }

    public double TotalWeight { get; }

    /// <summary>Set-bit indices of all points, point i at <c>SetBits[Offsets[i]..Offsets[i+1]]</c>.</summary>
    internal ushort[] SetBits { get; }

    internal int[] Offsets { get; }

    /// <summary>Fingerprints <c>[start, end)</c> as vectors of their own (copied): a partition of these.</summary>
    public BinaryVectors Slice(int start, int end)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(start);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(end, Count);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(end, start);
        return new BinaryVectors(Packed[(start * Words)..(end * Words)], Bits, Weights[start..end]);
    }

    public ReadOnlySpan<ulong> Fingerprint(int index) => Packed.AsSpan(index * Words, Words);

    public ReadOnlySpan<ushort> BitsOf(int index) => SetBits.AsSpan(Offsets[index], Offsets[index + 1] - Offsets[index]);

    public int PopCount(int index) => Offsets[index + 1] - Offsets[index];

    /// <summary>The same points as dense 0/1 vectors (for checks and for the dense-vs-binary benchmark).</summary>
    public DenseVectors ToDense()
    {
        var values = new double[Count * Bits];
        for (var i = 0; i < Count; i++)
        {
            foreach (var bit in BitsOf(i))
            {
                values[i * Bits + bit] = 1;
            }
        }

        return new DenseVectors(values, Bits, Weights);
    }
}
