using System.Globalization;
using System.IO.Compression;
using System.Text;
using Microsoft.VisualBasic.FileIO;

namespace Salsa.Chemistry;

/// <summary>One compound of a user's file: where it was, its id and its SMILES.</summary>
public sealed record CompoundRecord(int Line, string Id, string Smiles);

/// <summary>A compound file's layout.</summary>
public enum CompoundFileFormat
{
    /// <summary>CSV when the first line names a SMILES column, else SMILES lines.</summary>
    Auto,

    /// <summary>One molecule per line: its SMILES, then optionally whitespace and its id (a <c>.smi</c> file).</summary>
    Smiles,

    /// <summary>A header naming a <c>smiles</c> column and optionally an <c>id</c> (or <c>name</c>) column; other columns are ignored.</summary>
    Csv,
}

/// <summary>
/// Reads a user's compound file as it streams in — SMILES lines or CSV (.NET's own
/// <see cref="TextFieldParser"/>: quoting; comma, semicolon or tab), plain or gzip (recognised by its first bytes) — and says what is wrong
/// with the line number: a row without a SMILES, a file without a SMILES column. Whether RDKit can
/// read a SMILES is <see cref="Rdkit"/>'s to say.
/// </summary>
public static class CompoundFile
{
    private static readonly string[] SmilesColumns = ["smiles", "canonical_smiles", "isomeric_smiles", "smi"];
    private static readonly string[] IdColumns = ["id", "name", "compound_id", "molecule_id", "title"];

    public static CompoundFileFormat ParseFormat(string? format) => format?.ToLowerInvariant() switch
    {
        null or "" or "auto" => CompoundFileFormat.Auto,
        "smiles" or "smi" => CompoundFileFormat.Smiles,
        "csv" => CompoundFileFormat.Csv,
        _ => throw new ArgumentException($"Unknown compound file format '{format}': use auto, smiles or csv."),
    };

    /// <summary>The compounds of <paramref name="stream"/>, in file order; <paramref name="source"/> names the file in messages.</summary>
    public static IEnumerable<CompoundRecord> Read(Stream stream, CompoundFileFormat format, string source = "the file")
    {
        ArgumentNullException.ThrowIfNull(stream);
        using var reader = new StreamReader(Decompressed(stream), Encoding.UTF8, detectEncodingFromByteOrderMarks: true, bufferSize: 1 << 16);
        var first = reader.ReadLine();
        if (first is null)
        {
            yield break;
        }

        var header = SplitHeader(first);
        var csv = format == CompoundFileFormat.Csv || (format == CompoundFileFormat.Auto && header is not null && FindColumn(header.Value.Columns, SmilesColumns) >= 0);
        var records = csv ? ReadCsv(first, header, reader, source) : ReadSmiles(first, reader);
        foreach (var record in records)
        {
            yield return record;
        }
    }

    private static IEnumerable<CompoundRecord> ReadSmiles(string first, StreamReader reader)
    {
        var line = 0;
        for (var text = first; text is not null; text = reader.ReadLine())
        {
            line++;
            var trimmed = text.Trim();
            if (trimmed.Length == 0 || trimmed.StartsWith('#'))
            {
                continue;
            }

            var split = trimmed.IndexOfAny([' ', '\t']);
            var smiles = split < 0 ? trimmed : trimmed[..split];
            var id = split < 0 ? string.Empty : trimmed[(split + 1)..].Trim();
            yield return new CompoundRecord(line, id.Length > 0 ? id : DefaultId(line), smiles);
        }
    }

    private static IEnumerable<CompoundRecord> ReadCsv(string first, (string[] Columns, string Delimiter)? header, StreamReader reader, string source)
    {
        if (header is null)
        {
            throw new InvalidDataException($"{source} line 1: a CSV compound file starts with a header naming its columns (smiles, and id or name).");
        }

        var (columns, delimiter) = header.Value;
        var smilesColumn = FindColumn(columns, SmilesColumns);
        if (smilesColumn < 0)
        {
            throw new InvalidDataException($"{source} line 1: no SMILES column (one of {string.Join(", ", SmilesColumns)}) among {string.Join(", ", columns)}.");
        }

        var idColumn = FindColumn(columns, IdColumns);
        var line = 1;
        for (var text = reader.ReadLine(); text is not null; text = reader.ReadLine())
        {
            line++;
            if (text.Trim().Length == 0)
            {
                continue;
            }

            var fields = Fields(text, delimiter, source, line);
            if (smilesColumn >= fields.Length || string.IsNullOrWhiteSpace(fields[smilesColumn]))
            {
                throw new InvalidDataException($"{source} line {line}: no SMILES in column '{columns[smilesColumn]}'.");
            }

            var id = idColumn >= 0 && idColumn < fields.Length ? fields[idColumn] : string.Empty;
            yield return new CompoundRecord(line, id.Length > 0 ? id : DefaultId(line), fields[smilesColumn]);
        }
    }

    /// <summary>One CSV row's fields (quoting as RFC 4180 has it, within the line), by .NET's own parser.</summary>
    private static string[] Fields(string text, string delimiter, string source, int line)
    {
        using var parser = new TextFieldParser(new StringReader(text)) { TextFieldType = FieldType.Delimited, HasFieldsEnclosedInQuotes = true, TrimWhiteSpace = true };
        parser.SetDelimiters(delimiter);
        try
        {
            return parser.ReadFields() ?? [];
        }
        catch (MalformedLineException e)
        {
            throw new InvalidDataException($"{source} line {line}: not a CSV row ({e.Message}).", e);
        }
    }

    /// <summary>A header's columns and delimiter, if the line looks like one (a delimiter and no SMILES-only content).</summary>
    private static (string[] Columns, string Delimiter)? SplitHeader(string line)
    {
        foreach (var delimiter in new[] { ",", ";", "\t" })
        {
            if (line.Contains(delimiter, StringComparison.Ordinal))
            {
                return (line.Split(delimiter).Select(c => c.Trim().Trim('"').Trim()).ToArray(), delimiter);
            }
        }

        return FindColumn([line.Trim()], SmilesColumns) >= 0 ? ([line.Trim()], ",") : null;
    }

    private static int FindColumn(string[] columns, string[] names) =>
        Array.FindIndex(columns, c => names.Contains(c, StringComparer.OrdinalIgnoreCase));

    private static string DefaultId(int line) => string.Create(CultureInfo.InvariantCulture, $"line-{line}");

    /// <summary>The stream, decompressed when it starts with gzip's magic bytes.</summary>
    private static Stream Decompressed(Stream stream)
    {
        Span<byte> magic = stackalloc byte[2];
        var peek = new PeekStream(stream);
        var read = peek.Peek(magic);
        return read == 2 && magic[0] == 0x1f && magic[1] == 0x8b ? new GZipStream(peek, CompressionMode.Decompress) : peek;
    }

    /// <summary>A forward-only stream whose first bytes can be looked at before it is read.</summary>
    private sealed class PeekStream(Stream inner) : Stream
    {
        private byte[] _peeked = [];
        private int _offset;

        public int Peek(Span<byte> buffer)
        {
            var read = inner.ReadAtLeast(buffer, buffer.Length, throwOnEndOfStream: false);
            _peeked = buffer[..read].ToArray();
            return read;
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            if (_offset < _peeked.Length)
            {
                var n = Math.Min(buffer.Length, _peeked.Length - _offset);
                _peeked.AsSpan(_offset, n).CopyTo(buffer);
                _offset += n;
                return n;
            }

            return inner.Read(buffer);
        }

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                inner.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
