using System.Numerics;

namespace Salsa.DataFiles.Tests;

public sealed class CompoundSetTests
{
    private static int[] OnBits(ReadOnlySpan<ulong> words)
    {
        var bits = new List<int>();
        for (var w = 0; w < words.Length; w++)
        {
            for (var word = words[w]; word != 0; word &= word - 1)
            {
                bits.Add(w * 64 + BitOperations.TrailingZeroCount(word));
            }
        }

        return [.. bits];
    }

    [Fact]
    public void ParseHex_BenzeneEcfp4FromTheDataReadme_SetsBits64_389_849()
    {
        var hex = new char[256];
        Array.Fill(hex, '0');
        "01".CopyTo(hex.AsSpan(16));
        "20".CopyTo(hex.AsSpan(96));
        "02".CopyTo(hex.AsSpan(212));
        var words = new ulong[FingerprintType.Ecfp4.Words];

        CompoundSet.ParseHex(hex, FingerprintType.Ecfp4, words);

        Assert.Equal([64, 389, 849], OnBits(words));
    }

    [Fact]
    public void ParseHex_EthanolMaccsFromTheDataReadme_RoundTrips()
    {
        const string Hex = "000000000000000000000400002004000008002a11";
        var words = new ulong[FingerprintType.Maccs.Words];

        CompoundSet.ParseHex(Hex, FingerprintType.Maccs, words);

        Assert.Equal([82, 109, 114, 139, 153, 155, 157, 160, 164], OnBits(words));
        Assert.Equal(Hex, CompoundSet.FormatHex(words, FingerprintType.Maccs));
    }

    [Fact]
    public void ReadFile_Fixture_HasPublishedMeanBitCounts()
    {
        var set = CompoundSet.ReadFile(CompoundSet.FixturePath);

        Assert.Equal(500, set.Count);
        var meanEcfp = Enumerable.Range(0, set.Count).Average(i => OnBits(set.Fingerprint(FingerprintType.Ecfp4, i)).Length);
        var meanMaccs = Enumerable.Range(0, set.Count).Average(i => OnBits(set.Fingerprint(FingerprintType.Maccs, i)).Length);
        Assert.Equal(38.62, meanEcfp, 2);
        Assert.Equal(46.08, meanMaccs, 2);
        Assert.All(Enumerable.Range(0, set.Count), i => Assert.DoesNotContain(0, OnBits(set.Fingerprint(FingerprintType.Maccs, i))));
    }

    [Fact]
    public void ReadFile_FortyThousand_HasEveryCompound()
    {
        var set = CompoundSet.ReadFile(CompoundSet.Subset40kPath);

        Assert.Equal(40_000, set.Count);
        Assert.Equal(40_000, set.Ids.Distinct().Count());
        Assert.Equal(40_000 * 16, set.Fingerprints[FingerprintType.Ecfp4].Length);
    }

    [Theory]
    [InlineData("00ff", "hex characters")]
    [InlineData("zz00000000000000000000000000000000000000zz", "not valid hex")]
    [InlineData("0000000000000000000000000000000000000000ff", "beyond bit 166")]
    public void ParseHex_Malformed_Throws(string hex, string expected)
    {
        var words = new ulong[FingerprintType.Maccs.Words];

        var error = Assert.Throws<InvalidDataException>(() => CompoundSet.ParseHex(hex, FingerprintType.Maccs, words));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }
}
