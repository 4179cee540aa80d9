using System.Globalization;
using System.IO.Compression;
using Microsoft.VisualBasic.FileIO;

namespace Salsa.Datasets;

/// <summary>
/// What every reader of a user's file shares: gzip recognised by its first bytes (not by a name
/// the upload may not have), a header's delimiter (comma, semicolon or tab) and columns, and CSV
/// rows split by .NET's own <see cref="TextFieldParser"/> (RFC 4180 quoting) with the line number
/// in every message.
/// </summary>
public static class UserFile
{
    private static readonly string[] Delimiters = [",", ";", "\t"];

    /// <summary>The stream, decompressed when it starts with gzip's magic bytes.</summary>
    public static Stream Decompressed(Stream stream)
    {
        ArgumentNullException.ThrowIfNull(stream);
        Span<byte> magic = stackalloc byte[2];
        var peek = new PeekStream(stream);
        var read = peek.Peek(magic);
        return read == 2 && magic[0] == 0x1f && magic[1] == 0x8b ? new GZipStream(peek, CompressionMode.Decompress) : peek;
    }

    /// <summary>A header's columns (trimmed, unquoted) and its delimiter: the first of comma, semicolon, tab it holds; null when it holds none.</summary>
    public static (string[] Columns, string Delimiter)? SplitHeader(string line)
    {
        ArgumentNullException.ThrowIfNull(line);
        foreach (var delimiter in Delimiters)
        {
            if (line.Contains(delimiter, StringComparison.Ordinal))
            {
                return ([.. line.Split(delimiter).Select(c => c.Trim().Trim('"').Trim())], delimiter);
            }
        }

        return null;
    }

    /// <summary>The index of the first column named one of <paramref name="names"/> (case-insensitive); −1 when none is.</summary>
    public static int FindColumn(IReadOnlyList<string> columns, IReadOnlyCollection<string> names)
    {
        for (var i = 0; i < columns.Count; i++)
        {
            if (names.Contains(columns[i], StringComparer.OrdinalIgnoreCase))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>One CSV row's fields (quoting as RFC 4180 has it, within the line), by .NET's own parser.</summary>
    public static string[] Fields(string text, string delimiter, string source, int line)
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

    /// <summary>The id a row without one gets: <c>line-N</c>.</summary>
    public static string DefaultId(int line) => string.Create(CultureInfo.InvariantCulture, $"line-{line}");

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
