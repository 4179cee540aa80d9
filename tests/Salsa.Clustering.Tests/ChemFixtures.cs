using Salsa.DataFiles;

namespace Salsa.Clustering.Tests;

/// <summary>The compound sets as fingerprint inputs, and a naive Tanimoto to check the library against.</summary>
internal static class ChemFixtures
{
    private static readonly Lazy<BinaryVectors> Chem500Points = new(() => Ecfp4(CompoundSet.ReadFile(CompoundSet.FixturePath)));
    private static readonly Lazy<BinaryVectors> Chem40kPoints = new(() => Ecfp4(CompoundSet.ReadFile(CompoundSet.Subset40kPath)));

    /// <summary>The 500-compound fixture, ECFP4.</summary>
    public static BinaryVectors Chem500 => Chem500Points.Value;

    /// <summary>The 40,000-compound subset, ECFP4.</summary>
    public static BinaryVectors Chem40k => Chem40kPoints.Value;

    /// <summary>The first <paramref name="count"/> compounds of the 40k subset, ECFP4.</summary>
    public static BinaryVectors First(int count) => Ecfp4(CompoundSet.ReadFile(CompoundSet.Subset40kPath, count));

    public static BinaryVectors Ecfp4(CompoundSet set) =>
        new(set.Fingerprints[FingerprintType.Ecfp4], FingerprintType.Ecfp4.Bits);

    /// <summary>The first <paramref name="count"/> prints of a set as a new set.</summary>
    public static BinaryVectors Take(BinaryVectors points, int count) =>
        new(points.Packed[..(count * points.Words)], points.Bits);

    /// <summary>Bit counts one bit at a time: no POPCNT, no shortcuts.</summary>
    public static (int Common, int Union) NaiveCounts(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        int common = 0, union = 0;
        for (var w = 0; w < a.Length; w++)
        {
            for (var bit = 0; bit < 64; bit++)
            {
                var x = (a[w] >> bit) & 1;
                var y = (b[w] >> bit) & 1;
                common += (int)(x & y);
                union += (int)(x | y);
            }
        }

        return (common, union);
    }

    public static double NaiveSimilarity(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        var (common, union) = NaiveCounts(a, b);
        return union == 0 ? 1.0 : (double)common / union;
    }

    public static double NaiveDistance(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b) => 1.0 - NaiveSimilarity(a, b);

    /// <summary>A print with a few bits flipped, chosen by a fixed rule from <paramref name="seed"/>.</summary>
    public static ulong[] Perturbed(ReadOnlySpan<ulong> print, int bits, int seed, int flips)
    {
        var copy = print.ToArray();
        var random = new Random(seed);
        for (var f = 0; f < flips; f++)
        {
            var bit = random.Next(bits);
            copy[bit / 64] ^= 1UL << (bit % 64);
        }

        return copy;
    }
}
