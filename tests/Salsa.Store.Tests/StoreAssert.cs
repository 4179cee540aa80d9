using System.Runtime.InteropServices;

namespace Salsa.Store.Tests;

internal static class StoreAssert
{
    private static readonly Dictionary<string, string> NoMetadata = [];

    /// <summary>Every field equal, metadata by content.</summary>
    public static void SameInfo(DatasetInfo expected, DatasetInfo? actual)
    {
        Assert.NotNull(actual);
        Assert.Equal(expected with { Metadata = NoMetadata }, actual with { Metadata = NoMetadata });
        Assert.Equal(expected.Metadata.OrderBy(p => p.Key, StringComparer.Ordinal), actual.Metadata.OrderBy(p => p.Key, StringComparer.Ordinal));
    }

    /// <summary>Every array equal bit for bit (so NaN and -0.0 count), null where expected null.</summary>
    public static void SameContent(DatasetContent expected, DatasetContent? actual)
    {
        Assert.NotNull(actual);
        SameBits(expected.Values, actual.Values, "Values");
        SameBits(expected.Words, actual.Words, "Words");
        SameBits(expected.Weights, actual.Weights, "Weights");
        SameStrings(expected.Labels, actual.Labels, "Labels");
        SameStrings(expected.Texts, actual.Texts, "Texts");
    }

    private static void SameBits<T>(T[]? expected, T[]? actual, string name)
        where T : unmanaged
    {
        if (expected is null || actual is null)
        {
            Assert.True(expected is null && actual is null, $"{name}: expected {(expected is null ? "null" : "an array")}, got {(actual is null ? "null" : "an array")}.");
            return;
        }

        Assert.True(expected.Length == actual.Length, $"{name}: expected {expected.Length} entries, got {actual.Length}.");
        if (!MemoryMarshal.AsBytes(expected.AsSpan()).SequenceEqual(MemoryMarshal.AsBytes(actual.AsSpan())))
        {
            var i = Enumerable.Range(0, expected.Length).First(i => !MemoryMarshal.AsBytes(expected.AsSpan(i, 1)).SequenceEqual(MemoryMarshal.AsBytes(actual.AsSpan(i, 1))));
            Assert.Fail($"{name}[{i}]: expected {expected[i]}, got {actual[i]}.");
        }
    }

    private static void SameStrings(string[]? expected, string[]? actual, string name)
    {
        if (expected is null || actual is null)
        {
            Assert.True(expected is null && actual is null, $"{name}: expected {(expected is null ? "null" : "an array")}, got {(actual is null ? "null" : "an array")}.");
            return;
        }

        Assert.True(expected.Length == actual.Length, $"{name}: expected {expected.Length} entries, got {actual.Length}.");
        for (var i = 0; i < expected.Length; i++)
        {
            if (!string.Equals(expected[i], actual[i], StringComparison.Ordinal))
            {
                Assert.Fail($"{name}[{i}]: expected '{expected[i]}', got '{actual[i]}'.");
            }
        }
    }
}
