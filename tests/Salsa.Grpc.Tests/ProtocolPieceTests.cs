namespace Salsa.Grpc.Tests;

public sealed class ProtocolPieceTests
{
    [Theory]
    [InlineData("100m", 100 * TimeSpan.TicksPerMillisecond)]
    [InlineData("1S", TimeSpan.TicksPerSecond)]
    [InlineData("2M", 2 * TimeSpan.TicksPerMinute)]
    [InlineData("3H", 3 * TimeSpan.TicksPerHour)]
    [InlineData("5u", 5 * TimeSpan.TicksPerMicrosecond)]
    [InlineData("1000n", 10)]
    [InlineData("99999999m", 99_999_999 * TimeSpan.TicksPerMillisecond)]
    public void GrpcTimeoutTryParse_ValidValue_Parsed(string value, long ticks)
    {
        Assert.True(GrpcTimeout.TryParse(value, out var timeout));
        Assert.Equal(ticks, timeout.Ticks);
    }

    [Theory]
    [InlineData("")]
    [InlineData("m")]
    [InlineData("100")]
    [InlineData("100x")]
    [InlineData("123456789m")]
    [InlineData("-1m")]
    [InlineData("1.5S")]
    public void GrpcTimeoutTryParse_InvalidValue_Rejected(string value)
    {
        Assert.False(GrpcTimeout.TryParse(value, out _));
    }

    [Theory]
    [InlineData(250 * TimeSpan.TicksPerMillisecond, "250m")]
    [InlineData(1, "1m")]
    [InlineData(99_999_999 * TimeSpan.TicksPerMillisecond, "99999999m")]
    [InlineData(100_000 * TimeSpan.TicksPerSecond, "100000S")]
    [InlineData((100_000 * TimeSpan.TicksPerSecond) + 1, "100001S")]
    [InlineData(200_000_000 * TimeSpan.TicksPerSecond, "3333334M")]
    public void GrpcTimeoutFormat_Timeout_ShortestUnitRoundedUp(long ticks, string expected)
    {
        Assert.Equal(expected, GrpcTimeout.Format(TimeSpan.FromTicks(ticks)));
    }

    [Theory]
    [InlineData("plain text", "plain text")]
    [InlineData("100%", "100%25")]
    [InlineData("ünï", "%C3%BCn%C3%AF")]
    [InlineData("line\nbreak", "line%0Abreak")]
    public void PercentEncoding_RoundTrip_EncodesOnlyWhatItMust(string text, string encoded)
    {
        Assert.Equal(encoded, PercentEncoding.Encode(text));
        Assert.Equal(text, PercentEncoding.Decode(encoded));
    }

    [Fact]
    public void PercentEncodingDecode_MalformedEscape_KeptAsText()
    {
        Assert.Equal("50%zz and %", PercentEncoding.Decode("50%zz and %"));
    }

    [Fact]
    public void MetadataAdd_UpperCaseKey_Lowered()
    {
        var metadata = new Metadata { { "X-Trace", "1" } };

        Assert.Equal("x-trace", metadata[0].Key);
        Assert.Equal("1", metadata.GetValue("x-trace"));
    }

    [Fact]
    public void MetadataAdd_InvalidKeyOrMismatchedValue_Throws()
    {
        var metadata = new Metadata();

        Assert.Throws<ArgumentException>(() => metadata.Add("bad key", "v"));
        Assert.Throws<ArgumentException>(() => metadata.Add("data-bin", "text"));
        Assert.Throws<ArgumentException>(() => metadata.Add("data", [1]));
    }

    [Fact]
    public void MetadataHeadersDecodeBinary_UnpaddedBase64_Accepted()
    {
        Assert.Equal([1, 2], MetadataHeaders.DecodeBinary("AQI"));
        Assert.Equal([1, 2], MetadataHeaders.DecodeBinary("AQI="));
    }
}
