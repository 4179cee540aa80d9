using System.IO.Compression;
using System.Text;
using Salsa.DataFiles;

namespace Salsa.Chemistry.Tests;

/// <summary>A user's compound file as it arrives: SMILES lines or CSV, plain or gzip, each compound with its line; a line or SD record past the record limit refused at it.</summary>
public sealed class CompoundFileTests
{
    [Fact]
    public void SmilesLines_WithAndWithoutIds_CommentsAndBlankLinesSkipped()
    {
        var records = Read("# my compounds\nc1ccccc1 benzene\n\nCCO\tethanol\nCC(=O)O\n", CompoundFileFormat.Auto);

        Assert.Equal([(2, "benzene", "c1ccccc1"), (4, "ethanol", "CCO"), (5, "line-5", "CC(=O)O")], records.Select(r => (r.Line, r.Id, r.Smiles)));
    }

    [Theory]
    [InlineData(",")]
    [InlineData(";")]
    [InlineData("\t")]
    public void Csv_SmilesAndIdColumnsFoundByName_QuotedFields_LineNumbersOfTheFile(string delimiter)
    {
        var text = string.Join('\n', ["name,weight,SMILES", "\"aspirin, the drug\",180.2,CC(=O)Oc1ccccc1C(=O)O", "", "ethanol,46.1,CCO", ",1,C"]).Replace(",", delimiter, StringComparison.Ordinal);

        var records = Read(text, CompoundFileFormat.Auto);

        Assert.Equal([(2, "aspirin" + delimiter + " the drug", "CC(=O)Oc1ccccc1C(=O)O"), (4, "ethanol", "CCO"), (5, "line-5", "C")], records.Select(r => (r.Line, r.Id, r.Smiles)));
    }

    [Fact]
    public void Gzip_IsRecognisedByItsFirstBytes()
    {
        using var packed = new MemoryStream();
        using (var gzip = new GZipStream(packed, CompressionLevel.Fastest, leaveOpen: true))
        {
            gzip.Write(Encoding.UTF8.GetBytes("id,smiles\nm1,c1ccccc1\nm2,CCO\n"));
        }

        packed.Position = 0;
        var records = CompoundFile.Read(packed, CompoundFileFormat.Auto).ToList();

        Assert.Equal(["m1", "m2"], records.Select(r => r.Id));
    }

    [Fact]
    public void Csv_RowWithoutSmiles_RefusedWithItsLine_AndAFileWithoutASmilesColumnAtOnce()
    {
        var missing = Assert.Throws<InvalidDataException>(() => Read("id,smiles\na,CCO\nb,\nc,C", CompoundFileFormat.Csv));
        Assert.Contains("line 3", missing.Message, StringComparison.Ordinal);

        var noColumn = Assert.Throws<InvalidDataException>(() => Read("id,structure\na,CCO", CompoundFileFormat.Csv));
        Assert.Contains("line 1", noColumn.Message, StringComparison.Ordinal);
        Assert.Contains("structure", noColumn.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => CompoundFile.ParseFormat("sdf2"));
        Assert.Equal(CompoundFileFormat.Sdf, CompoundFile.ParseFormat("SDF"));
    }

    [Fact]
    public void Sdf_RecordsWithTheirFirstLine_IdFromTheTitleOrAnIdField_RecognisedByTheCountsLine()
    {
        const string Ethanol = "ethanol\n  RDKit          2D\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\n    1.2990    0.7500    0.0000 C   0  0\n    2.5981   -0.0000    0.0000 O   0  0\n  1  2  1  0\n  2  3  1  0\nM  END\n";
        var untitled = "\n" + Ethanol[Ethanol.IndexOf('\n', StringComparison.Ordinal)..].TrimStart('\n');
        var text = Ethanol + "> <MW>\n46.07\n\n$$$$\n" + untitled + "> <ID>\nE-2\n\n$$$$\n" + untitled + "$$$$\n";

        var records = Read(text, CompoundFileFormat.Auto);

        Assert.Equal([(1, "ethanol"), (15, "E-2"), (29, "line-29")], records.Select(r => (r.Line, r.Id)));
        Assert.All(records, r => Assert.True(r.IsMolBlock && r.Smiles.Contains("M  END", StringComparison.Ordinal)));
        var unended = Assert.Throws<InvalidDataException>(() => Read(Ethanol.Replace("M  END\n", "", StringComparison.Ordinal) + "$$$$\n", CompoundFileFormat.Sdf));
        Assert.Contains("line 1: an SD record whose molblock has no 'M  END'", unended.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SmilesLineOfAHundredMegabytes_Refused()
    {
        var file = GzipText("CCO ethanol\n" + new string('C', 100 << 20) + " huge\n");

        var error = Assert.Throws<FileTooLargeException>(() => CompoundFile.Read(new MemoryStream(file), CompoundFileFormat.Auto, "compounds.smi").ToList());

        Assert.StartsWith("compounds.smi line 2 is longer than 16,777,216 bytes", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SdRecords_OfTenMegabytesRead_BeyondTheLimitRefusedAtTheirFirstLine()
    {
        static string Record(int atoms) =>
            $"big\n  RDKit\n\n{atoms}  0  0  0  0  0  0  0  0  0999 V2000\n" +
            string.Concat(Enumerable.Repeat("    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n", atoms)) + "M  END\n$$$$\n";
        const string Ethanol1 = "ethanol\n  RDKit\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\nM  END\n$$$$\n";

        // A record of 10 MB (some 145,000 atoms' lines) is read whole.
        var tenMegabytes = Record(145_000);
        Assert.InRange(Encoding.UTF8.GetByteCount(tenMegabytes), 10_000_000, 16 << 20);
        var read = CompoundFile.Read(new MemoryStream(Encoding.UTF8.GetBytes(Ethanol1 + tenMegabytes)), CompoundFileFormat.Sdf, "c.sdf").ToList();
        Assert.Equal(2, read.Count);
        Assert.True(read[1].IsMolBlock && read[1].Smiles.Length > 10_000_000, $"{read[1].Smiles.Length:N0}");

        var sdf = Ethanol1 + Record(250_000);
        var error = Assert.Throws<FileTooLargeException>(() => CompoundFile.Read(new MemoryStream(Encoding.UTF8.GetBytes(sdf)), CompoundFileFormat.Sdf, "c.sdf").ToList());

        Assert.Equal("c.sdf line 8: an SD record longer than 16,777,216 bytes, the longest record a file may have here (Salsa:Files:MaxRecordBytes); nothing of it is stored.", error.Message);
    }

    private static byte[] GzipText(string text)
    {
        using var packed = new MemoryStream();
        using (var gzip = new GZipStream(packed, CompressionLevel.SmallestSize, leaveOpen: true))
        {
            gzip.Write(Encoding.UTF8.GetBytes(text));
        }

        return packed.ToArray();
    }

    private static List<CompoundRecord> Read(string text, CompoundFileFormat format) =>
        CompoundFile.Read(new MemoryStream(Encoding.UTF8.GetBytes(text)), format, "the test file").ToList();
}
