using System.Globalization;
using System.IO.Compression;
using System.Text;

namespace Salsa.DataFiles.Tests;

/// <summary>
/// A user's file is bounded by what it expands to, as it is read: the longest line (CSV, SMILES)
/// or record (SD record, GeoJSON feature), the decompressed bytes, the rows — each refused at the
/// first byte past its limit, never held whole; gzip read strictly (cut, damaged, or followed by
/// anything after its last member: refused); GeoJSON streamed feature by feature.
/// </summary>
public sealed class UserFileLimitTests
{
    private const string Header = "id,latitude,longitude,population\n";

    private static byte[] Gzip(string text) => Gzip(Encoding.UTF8.GetBytes(text));

    private static byte[] Gzip(byte[] data)
    {
        using var packed = new MemoryStream();
        using (var gzip = new GZipStream(packed, CompressionLevel.SmallestSize, leaveOpen: true))
        {
            gzip.Write(data);
        }

        return packed.ToArray();
    }

    /// <summary>A place file whose second line holds an id of <paramref name="idBytes"/> bytes, gzip-compressed in pieces (never the whole text in memory).</summary>
    private static byte[] OneHugeLine(long idBytes)
    {
        using var packed = new MemoryStream();
        using (var gzip = new GZipStream(packed, CompressionLevel.SmallestSize, leaveOpen: true))
        {
            gzip.Write(Encoding.UTF8.GetBytes(Header));
            var chunk = Encoding.UTF8.GetBytes(new string('x', 1 << 20));
            for (long written = 0; written < idBytes; written += chunk.Length)
            {
                gzip.Write(chunk, 0, (int)Math.Min(chunk.Length, idBytes - written));
            }

            gzip.Write(",39.7,-86.1,100\n"u8);
        }

        return packed.ToArray();
    }

    private static PlaceTable Places(byte[] file, UserFileSource? source = null, PlaceFileFormat format = PlaceFileFormat.Auto) =>
        PlaceFile.Read(new MemoryStream(file), format, null, source ?? new UserFileSource("places.csv"));

    [Fact]
    public void OneLineOf250MiB_RefusedAtThatLine_InAFewMegabytes()
    {
        var file = OneHugeLine(250L << 20);
        Assert.InRange(file.Length, 1, 400_000); // a quarter of a megabyte on the wire

        var before = GC.GetAllocatedBytesForCurrentThread();
        var error = Assert.Throws<FileTooLargeException>(() => Places(file));
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal("places.csv line 2 is longer than 16,777,216 bytes, the longest line a file may have here (Salsa:Files:MaxRecordBytes); nothing of it is stored.", error.Message);
        Assert.True(allocated < 8 * UserFileSource.DefaultMaxRecordBytes, $"refusing it allocated {allocated:N0} bytes: a record's worth, not the file's");
    }

    [Fact]
    public void LinesUpToTheLimit_Read_OneByteMore_Refused()
    {
        var source = new UserFileSource("places.csv") { MaxRecordBytes = 300_000 };
        var fits = 300_000 - ",39.7,-86.1,100".Length;

        var table = Places(Encoding.UTF8.GetBytes(Header + new string('é', fits / 2) + ",39.7,-86.1,100\n"), source); // two bytes a character
        Assert.Equal(fits / 2, Assert.Single(table.Ids).Length);

        var error = Assert.Throws<FileTooLargeException>(() => Places(Encoding.UTF8.GetBytes(Header + new string('x', fits + 1) + ",39.7,-86.1,100\n"), source));
        Assert.StartsWith("places.csv line 2 is longer than 300,000 bytes", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Lines_AsTextReaderReadsThem_WhateverTheEndsAndTheBufferBoundaries()
    {
        // Against .NET's own ReadLine: CR, LF and CRLF, empty lines, no final end, ends across buffer edges.
        var random = new Random(11);
        string[] pieces = ["a", "bb", "\r", "\n", "\r\n", "", new string('y', 65_535), "é", "\u20ac"];
        for (var trial = 0; trial < 500; trial++)
        {
            var text = string.Concat(Enumerable.Range(0, random.Next(1, 12)).Select(_ => pieces[random.Next(pieces.Length)]));
            var expected = new List<string>();
            using (var reader = new StringReader(text))
            {
                while (reader.ReadLine() is { } line)
                {
                    expected.Add(line);
                }
            }

            var lines = new UserFileLines(new StringReader(text), "t.csv");
            Assert.Equal(expected, lines.ReadAll().ToList());
            Assert.Equal(expected.Count, lines.Number);
        }
    }

    [Theory]
    [InlineData("garbage")]
    [InlineData("x")]
    [InlineData("\0\0\0\0")]
    [InlineData("\u001f")] // the first byte of a member's magic, alone
    public void BytesAfterTheLastGzipMember_Refused(string tail)
    {
        var file = Gzip(Header + "a,39.7,-86.1,100\n").Concat(Encoding.Latin1.GetBytes(tail)).ToArray();

        var error = Assert.Throws<InvalidDataException>(() => Places(file));

        Assert.True(error.Message.StartsWith("places.csv: bytes follow the last gzip member", StringComparison.Ordinal)
            || error.Message.StartsWith("places.csv: the gzip data is cut short or damaged", StringComparison.Ordinal), error.Message);
    }

    [Fact]
    public void GzipMembers_Joined_ReadAsOneFile()
    {
        var file = Gzip(Header + "a,39.7,-86.1,100\n").Concat(Gzip("b,40.7,-74.0,200\n")).Concat(Gzip("")).ToArray();

        Assert.Equal(["a", "b"], Places(file).Ids);
    }

    [Theory]
    [InlineData(1, "it ends inside a member")]
    [InlineData(4, "it ends inside a member")]
    [InlineData(30, "it ends inside a member")]
    public void GzipCutShort_Refused(int cut, string why)
    {
        var whole = Gzip(Header + string.Concat(Enumerable.Range(0, 50).Select(i => string.Create(CultureInfo.InvariantCulture, $"p{i},39.{i},-86.1,{i}\n"))));

        var error = Assert.Throws<InvalidDataException>(() => Places(whole[..^cut]));

        Assert.Equal($"places.csv: the gzip data is cut short or damaged ({why}); nothing of it is stored.", error.Message);
    }

    [Theory]
    [InlineData(-8, "a member's CRC-32 does not match its data")]
    [InlineData(-4, "a member's length does not match its data")]
    public void GzipTrailerWrong_Refused(int at, string why)
    {
        var file = Gzip(Header + "a,39.7,-86.1,100\n");
        file[file.Length + at] ^= 0x01;

        var error = Assert.Throws<InvalidDataException>(() => Places(file));

        Assert.Equal($"places.csv: the gzip data is cut short or damaged ({why}); nothing of it is stored.", error.Message);
    }

    [Fact]
    public void GzipHeaderFields_NameCommentExtraAndHeaderCrc_Skipped()
    {
        // A member written by hand with every optional header field (RFC 1952 §2.3), its data from .NET's deflate.
        var text = Encoding.UTF8.GetBytes(Header + "a,39.7,-86.1,100\n");
        using var deflated = new MemoryStream();
        using (var deflate = new DeflateStream(deflated, CompressionLevel.Optimal, leaveOpen: true))
        {
            deflate.Write(text);
        }

        var crc = new ICSharpCode.SharpZipLib.Checksum.Crc32();
        crc.Update(text);
        byte[] header = [0x1f, 0x8b, 8, 0x02 | 0x04 | 0x08 | 0x10, 0, 0, 0, 0, 0, 3, 3, 0, (byte)'x', (byte)'y', (byte)'z', .. "places.csv\0"u8, .. "made by hand\0"u8, 0xab, 0xcd];
        byte[] file = [.. header, .. deflated.ToArray(), .. BitConverter.GetBytes((uint)crc.Value), .. BitConverter.GetBytes(text.Length)];

        Assert.Equal(["a"], Places(file).Ids);
    }

    /// <summary>A FeatureCollection of <paramref name="count"/> points on one line, as minified GeoJSON is written.</summary>
    private static string GeoJson(int count, string before = "\"type\":\"FeatureCollection\",", string after = "") =>
        "{" + before + "\"features\":[" + string.Join(",", Enumerable.Range(0, count).Select(i => string.Create(CultureInfo.InvariantCulture,
            $"{{\"type\":\"Feature\",\"id\":\"f{i}\",\"geometry\":{{\"type\":\"Point\",\"coordinates\":[{-86 - (i % 90) / 100.0},{39 + (i % 50) / 100.0}]}},\"properties\":{{\"population\":{i},\"state\":\"s{i % 7}\"}}}}"))) + "]" + after + "}";

    [Fact]
    public void GeoJsonOnOneLine_ThreeMegabytes_ReadFeatureByFeature()
    {
        var text = GeoJson(25_000);
        Assert.True(text.Length > 3 << 20, $"{text.Length:N0}");

        var table = Places(Gzip(text));

        Assert.Equal(25_000, table.Count);
        Assert.Equal("f24999", table.Ids[^1]);
        Assert.Equal(24_999, table.Weights[^1]);
        Assert.Equal(["state"], table.GroupColumns);
        Assert.Equal("s3", table.Groups[10][0]);
    }

    [Fact]
    public void GeoJsonTypeAfterTheFeatures_AndOtherMembers_Read()
    {
        var text = GeoJson(3, before: "\"name\":\"towns\",\"bbox\":[1,2,3,4],\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"x\"}},", after: ",\"type\":\"FeatureCollection\"");

        Assert.Equal(["f0", "f1", "f2"], Places(Encoding.UTF8.GetBytes(text)).Ids);
    }

    [Fact]
    public void GeoJsonFeaturesBeforeAnyProperties_ReadWithTheNamesOfTheFirstThatHasThem()
    {
        const string text = """
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[-86.1,39.7]}},
              {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[-87.6,41.8]},"properties":{"state":"IL"}}]}
            """;

        var table = Places(Encoding.UTF8.GetBytes(text));

        Assert.Equal(["feature-1", "7"], table.Ids);
        Assert.Equal(["", "IL"], table.Groups.Select(g => g[0]));
    }

    [Fact]
    public void GeoJsonFeatureBeyondTheLimit_RefusedWhereItStarts_InAFewMegabytes()
    {
        var text = GeoJson(2).Replace("\"state\":\"s1\"", $"\"state\":\"{new string('s', 50 << 20)}\"", StringComparison.Ordinal);
        var file = Gzip(text);

        var before = GC.GetAllocatedBytesForCurrentThread();
        var error = Assert.Throws<FileTooLargeException>(() => Places(file, new UserFileSource("places.geojson")));
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Matches(@"^places\.geojson: the feature at byte [\d,]+ is longer than 16,777,216 bytes, the longest record a file may have here \(Salsa:Files:MaxRecordBytes\)", error.Message);
        Assert.True(allocated < 8 * UserFileSource.DefaultMaxRecordBytes, $"refusing it allocated {allocated:N0} bytes: a record's worth, not the file's");
    }

    [Theory]
    [InlineData("[1, 2]", "a GeoJSON place file is a FeatureCollection")]
    [InlineData("{\"type\":\"Feature\",\"features\":[]}", "a GeoJSON place file is a FeatureCollection")]
    [InlineData("{\"type\":\"FeatureCollection\"}", "a GeoJSON place file is a FeatureCollection")]
    [InlineData("{\"type\":\"FeatureCollection\",\"features\":{}}", "a GeoJSON place file is a FeatureCollection")]
    [InlineData("{\"type\":\"FeatureCollection\",\"features\":[]} trailing", "not JSON (line 1")]
    [InlineData("{\"type\":\"FeatureCollection\",\"features\":[", "not JSON")]
    [InlineData("{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1e400,2]}}]}", "feature 1: a Point's coordinates are [longitude, latitude].")]
    public void GeoJsonNotACollectionOfPoints_RefusedWithWhatIsWrong(string text, string expected)
    {
        var error = Assert.Throws<InvalidDataException>(() => Places(Encoding.UTF8.GetBytes(text), format: PlaceFileFormat.GeoJson));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void GeoJsonNestedDeeperThanJsonsLimit_Refused()
    {
        var deep = "{\"type\":\"FeatureCollection\",\"features\":[{\"x\":" + new string('[', 10_000) + new string(']', 10_000) + "}]}";

        var error = Assert.Throws<InvalidDataException>(() => Places(Encoding.UTF8.GetBytes(deep)));

        Assert.Contains("not JSON", error.Message, StringComparison.Ordinal);
    }
}
